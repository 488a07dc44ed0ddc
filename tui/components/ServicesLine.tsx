import { Text } from 'ink'
import { memo } from 'react'

export type ServicesLineProps = {
  /** The chain manager (the faucet: `POST /faucet`). */
  chainManagerUrl: string
  /** The facilitator (`/supported`, `/verify`, `/settle`): what sellers using the official x402 packages point at. */
  facilitatorUrl: string
}

/** One line under the chain's: where the chain manager and the facilitator answer. */
export const ServicesLine = memo(function ServicesLine({ chainManagerUrl, facilitatorUrl }: ServicesLineProps) {
  return (
    <Text wrap="truncate-end">
      <Text dimColor>{'  chain manager '}</Text>
      <Text>{chainManagerUrl}</Text>
      <Text dimColor>{' · facilitator '}</Text>
      <Text>{facilitatorUrl}</Text>
    </Text>
  )
})
