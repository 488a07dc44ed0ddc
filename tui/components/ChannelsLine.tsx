import { Text } from 'ink'
import { memo } from 'react'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import type { Channel } from '../../sdk/types.js'

export type ChannelsLineProps = {
  /** The seller's payment channels (`svc channels`); none (or unknown): the line is not drawn. */
  channels: Channel[] | undefined
}

/** How many lines {@link ChannelsLine} takes: one while the seller has a channel. */
export const channelsLineLines = (channels: Channel[] | undefined) => (channels?.length ? 1 : 0)

const sum = (channels: Channel[], field: 'deposited' | 'spent' | 'claimed' | 'settled' | 'refunded') =>
  formatUsdc(channels.reduce((total, channel) => total + BigInt(channel[field]), 0n))

/**
 * One line while buyers have opened payment channels (batch-settlement) on the seller's APIs: how many are open, the
 * requests they paid, and where their money stands (deposited, spent by vouchers, claimed, settled, refunded).
 */
export const ChannelsLine = memo(function ChannelsLine({ channels }: ChannelsLineProps) {
  if (!channels?.length) return null
  const open = channels.filter((channel) => channel.state !== 'closed').length
  const requests = channels.reduce((total, channel) => total + channel.vouchers, 0)
  return (
    <Text wrap="truncate-end">
      <Text color="cyan">{`  channels (${open} open of ${channels.length}) `}</Text>
      <Text>
        {`${requests} requests · deposited ${sum(channels, 'deposited')} · spent ${sum(channels, 'spent')} · claimed ${sum(channels, 'claimed')} · settled ${sum(channels, 'settled')} · refunded ${sum(channels, 'refunded')} USDC`}
      </Text>
    </Text>
  )
})
