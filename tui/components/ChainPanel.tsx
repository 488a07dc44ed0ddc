import { Text } from 'ink'
import { memo } from 'react'
import { formatOffset } from '../format.js'
import type { ChainInfo, Loadable } from '../model.js'

export type ChainPanelProps = {
  chainId: number
  network: string
  rpcUrl: string
  chain: Loadable<ChainInfo>
}

/**
 * One line: `chain 845320402 (eip155:845320402) · block #12 · RPC http://…` (with `· time +2h` while `svc time advance`
 * has moved svc's clock and the chain's), or the chain id and the RPC's error.
 */
export const ChainPanel = memo(function ChainPanel({ chainId, network, rpcUrl, chain }: ChainPanelProps) {
  const { data, error } = chain
  return (
    <Text wrap="truncate-end">
      <Text bold color="cyan">{`chain ${chainId}`}</Text>
      {error ? null : <Text dimColor>{` (${network})`}</Text>}
      {error ? (
        <Text color="red">{` ✖ ${error}`}</Text>
      ) : (
        <Text>
          {` · block ${data ? `#${data.blockNumber.toLocaleString('en-US')}` : '…'}`}
          {data?.clockOffsetSeconds ? (
            <Text color="yellow">{` · time ${formatOffset(data.clockOffsetSeconds)}`}</Text>
          ) : null}
          <Text dimColor>{` · RPC ${rpcUrl}`}</Text>
        </Text>
      )}
    </Text>
  )
})
