import { Text } from 'ink'
import { memo } from 'react'
import type { DashboardOptions } from '../model.js'

export type TwinsLineProps = { twins: DashboardOptions['urls']['twins'] }

/** One line per twin of a testnet (`svc up --twin`): its name, chain id and network, and its RPC. Nothing without one. */
export const TwinsLine = memo(function TwinsLine({ twins = [] }: TwinsLineProps) {
  return (
    <>
      {twins.map((twin) => (
        <Text key={twin.name} wrap="truncate-end">
          <Text dimColor>{`  twin ${twin.name} `}</Text>
          <Text>{twin.rpc_url}</Text>
          <Text dimColor>{` · chain id ${twin.chain_id} (${twin.network}) · USDC ${twin.usdc}`}</Text>
        </Text>
      ))}
    </>
  )
})
