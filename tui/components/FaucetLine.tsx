import { Text } from 'ink'
import { formatEth, formatUsdc, shortHex } from '../format.js'
import type { FaucetState } from '../model.js'
import { Line } from './Panel.js'

/** What a faucet call sent: `10 ETH and 1,000 USDC`. */
function sent(funded: { eth_wei?: string | undefined; usdc_base?: string | undefined }): string {
  const parts = [
    funded.eth_wei ? formatEth(funded.eth_wei) : undefined,
    funded.usdc_base ? formatUsdc(funded.usdc_base) : undefined,
  ]
  return parts.filter(Boolean).join(' and ') || 'nothing'
}

/** The faucet: the key to press, "funding…" while it runs, then what it sent or why it failed. */
export function FaucetLine({ faucet }: { faucet: FaucetState }) {
  return (
    <Line>
      <Text dimColor>{'faucet  '}</Text>
      {faucet.status === 'idle' ? (
        <Text dimColor>press f to send ETH and USDC to this wallet</Text>
      ) : faucet.status === 'funding' ? (
        <Text color="yellow">{`funding ${shortHex(faucet.address)}…`}</Text>
      ) : faucet.status === 'funded' ? (
        <Text color="green">
          {`✔ sent ${sent(faucet.result.funded)}`}
          {faucet.result.transactions.usdc ? (
            <Text dimColor>{` · tx ${shortHex(faucet.result.transactions.usdc)}`}</Text>
          ) : null}
        </Text>
      ) : (
        <Text color="red">{`✖ ${faucet.error}`}</Text>
      )}
    </Line>
  )
}
