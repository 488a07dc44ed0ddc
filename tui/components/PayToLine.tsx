import { Text } from 'ink'
import { memo } from 'react'
import { formatClock, formatPrice, formatUsdc, shortHex } from '../format.js'
import type { Loadable, PayToBalances, SessionRevenue } from '../model.js'
import { Line } from './Panel.js'

export type PayToLineProps = {
  /** The USDC balances of the addresses the seller's APIs pay to. */
  payTo: Loadable<PayToBalances>
  /** The revenue since the dashboard opened; undefined while the settlements load (or failed: their panel says why). */
  revenue: SessionRevenue | undefined
  /** The sandbox USDC's address: revenue in it is shown in USDC. */
  usdc: string
  width: number
}

type Part = { text: string; color?: 'green' | 'red' | undefined; dim?: boolean | undefined; bold?: boolean | undefined }

/** The pay-to part: the address (whole or shortened) and its USDC; several addresses are counted and summed. */
function payToParts(payTo: Loadable<PayToBalances>, wholeAddress: boolean): Part[] {
  const label: Part = { text: 'pay-to ', dim: true }
  if (payTo.error) return [label, { text: `✖ ${payTo.error}`, color: 'red' }]
  if (!payTo.data) return [label, { text: 'loading…', dim: true }]
  const [first, ...others] = payTo.data
  if (!first) return [label, { text: 'no APIs yet', dim: true }]
  const sum = payTo.data.reduce((total, { usdc_base }) => total + BigInt(usdc_base), 0n)
  const who = others.length ? `${payTo.data.length} addresses` : wholeAddress ? first.address : shortHex(first.address)
  return [label, { text: who, bold: true }, { text: `  ${formatUsdc(sum)}`, color: 'green' }]
}

/** The revenue part: the USDC taken (other assets counted), then when the session began and how many payments. */
function revenueParts(revenue: SessionRevenue | undefined, usdc: string, since: boolean, count: boolean): Part[] {
  const label: Part = { text: '  ·  revenue ', dim: true }
  if (!revenue) return [label, { text: '…', dim: true }]
  const others = Object.keys(revenue.amounts).filter((asset) => asset !== usdc.toLowerCase()).length
  const amount = formatPrice({ asset: usdc, amount: revenue.amounts[usdc.toLowerCase()] ?? '0' }, usdc)
  const payments = `${revenue.count} paid`
  return [
    label,
    { text: amount, color: 'green', bold: true },
    ...(others ? [{ text: ` + ${others} other asset${others === 1 ? '' : 's'}`, color: 'green' as const }] : []),
    ...(since ? [{ text: ` since ${formatClock(revenue.since)}`, dim: true }] : []),
    ...(count ? [{ text: ` (${payments})`, dim: true }] : []),
  ]
}

/**
 * One line under the wallet for a seller: the balance of the address the APIs pay to (what buyers' payments reach),
 * and the session's revenue: what the settlements since the dashboard opened took, since when, and how many. The
 * fullest form that fits: the whole address, then shortened, then without the count, then without the time.
 */
export const PayToLine = memo(function PayToLine({ payTo, revenue, usdc, width }: PayToLineProps) {
  const forms = [
    [true, true, true],
    [false, true, true],
    [false, true, false],
    [false, false, false],
  ].map(([whole, since, count]) => [...payToParts(payTo, whole!), ...revenueParts(revenue, usdc, since!, count!)])
  const length = (parts: Part[]) => parts.reduce((n, part) => n + part.text.length, 0)
  const parts = forms.find((form) => 2 + length(form) <= width) ?? forms.at(-1)!
  return (
    <Line>
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one line, always in the same order
        <Text key={i} color={part.color} dimColor={part.dim} bold={part.bold}>
          {part.text}
        </Text>
      ))}
    </Line>
  )
})

/** Lines the pay-to line takes: one with a session (the seller's APIs), none without. */
export const payToLineLines = (loggedIn: boolean): number => (loggedIn ? 1 : 0)
