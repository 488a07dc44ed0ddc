import { Text } from 'ink'
import { memo } from 'react'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import type { Channel } from '../../sdk/types.js'
import { shortHex } from '../format.js'

export type ChannelsLineProps = {
  /** The seller's payment channels (`svc channels`); none (or unknown): the lines are not drawn. */
  channels: Channel[] | undefined
  /** The terminal's columns: a narrow one leaves out the refunded and withdrawn amounts while they are 0. */
  width?: number | undefined
}

/** How many lines {@link ChannelsLine} takes: three while the seller has a channel. */
export const channelsLineLines = (channels: Channel[] | undefined) => (channels?.length ? 3 : 0)

type Amount = 'deposited' | 'spent' | 'claimed' | 'settled' | 'refunded' | 'withdrawn'

const sum = (channels: Channel[], field: Amount) =>
  formatUsdc(channels.reduce((total, channel) => total + BigInt(channel[field]), 0n))

const stateColor = { open: 'green', withdrawing: 'yellow', closed: 'gray' } as const

/** The channel whose life moved last (the newest update; of two at once, the newer channel). */
export function latestChannel(channels: Channel[]): Channel | undefined {
  let latest: Channel | undefined
  for (const channel of channels)
    if (
      !latest ||
      channel.updated_at > latest.updated_at ||
      (channel.updated_at === latest.updated_at && channel.created_at > latest.created_at)
    )
      latest = channel
  return latest
}

/** A channel's amounts in one line of at most `width` columns when it can: what is 0 of refunded and withdrawn gives way. */
function amountsLine(channel: Channel, width: number): string {
  const amounts = (['deposited', 'spent', 'claimed', 'settled', 'refunded', 'withdrawn'] as const).map(
    (field) => [field, channel[field]] as const,
  )
  const line = (shown: typeof amounts) =>
    `    ${shown.map(([field, amount]) => `${field} ${formatUsdc(amount)}`).join('  ')}`
  const whole = line(amounts)
  if (whole.length <= width) return whole
  return line(amounts.filter(([field, amount]) => (field !== 'refunded' && field !== 'withdrawn') || amount !== '0'))
}

/**
 * Three lines while buyers have opened payment channels (batch-settlement) on the seller's APIs: how many are in each
 * state and what they took in all; then the channel whose life moved last, its state, requests and payer, and where
 * its money stands: deposited, spent by vouchers, claimed and settled to the receiver, refunded by the seller or
 * withdrawn by the buyer. Each line is cut to the terminal's width.
 */
export const ChannelsLine = memo(function ChannelsLine({ channels, width = 100 }: ChannelsLineProps) {
  if (!channels?.length) return null
  const states = (['open', 'withdrawing', 'closed'] as const)
    .map((state) => [state, channels.filter((channel) => channel.state === state).length] as const)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${state}`)
    .join(', ')
  const requests = channels.reduce((total, channel) => total + channel.vouchers, 0)
  const latest = latestChannel(channels)!
  return (
    <>
      <Text wrap="truncate-end">
        <Text color="cyan">{`  channels (${states}) `}</Text>
        <Text>{`${requests} requests · deposited ${sum(channels, 'deposited')} · spent ${sum(channels, 'spent')} · settled ${sum(channels, 'settled')} USDC`}</Text>
      </Text>
      <Text wrap="truncate-end">
        {'    latest '}
        <Text bold>{shortHex(latest.channel_id)}</Text> <Text color={stateColor[latest.state]}>{latest.state}</Text>
        {` · ${latest.vouchers} requests · payer ${shortHex(latest.payer)}`}
      </Text>
      <Text wrap="truncate-end">{amountsLine(latest, width)}</Text>
    </>
  )
})
