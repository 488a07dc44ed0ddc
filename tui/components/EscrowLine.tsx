import { Text } from 'ink'
import { memo } from 'react'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import type { EscrowPayment, Settlement } from '../../sdk/types.js'
import { fit, formatTtl, shortHex } from '../format.js'

export type EscrowLineProps = {
  /** The seller's escrow payments (`svc payments`, newest first); none on the running chain (or unknown): not drawn. */
  payments: EscrowPayment[] | undefined
  /** svc's clock (ms): the next capture deadline counts down by it, as the escrow and svc judge it. */
  now: number
  /** The terminal's columns: a narrow one drops what is 0, the clock's name and then the states' names. */
  width?: number | undefined
}

/** The payments of the running chain: those of an earlier one are gone with it. */
const currentOf = (payments: EscrowPayment[] | undefined) => payments?.filter((p) => !p.old_chain) ?? []

/** How many lines {@link EscrowLine} takes: three while the seller has an escrow payment on the running chain. */
export const escrowLineLines = (payments: EscrowPayment[] | undefined) => (currentOf(payments).length ? 3 : 0)

const isHeld = (p: Pick<EscrowPayment, 'capturable'>) => BigInt(p.capturable) > 0n

/** Something is held until a capture deadline: the dashboard's clock ticks for the countdown. */
export const escrowLineCountsDown = (payments: EscrowPayment[] | undefined) => currentOf(payments).some(isHeld)

/** A state as a seller reads it: an authorized payment is held in escrow. */
const stateWord = (state: EscrowPayment['state']) => (state === 'authorized' ? 'held' : state)

const stateColor = {
  authorized: 'yellow',
  captured: 'green',
  charged: 'green',
  voided: 'gray',
  refunded: 'magenta',
  reclaimed: 'gray',
} as const

/** The order states are counted in: what is held first, then how payments ended. */
const states = ['authorized', 'captured', 'charged', 'voided', 'refunded', 'reclaimed'] as const

const usdc = (amount: bigint | string) => formatUsdc(amount)
const sum = (payments: EscrowPayment[], amount: (p: EscrowPayment) => string) =>
  payments.reduce((total, p) => total + BigInt(amount(p)), 0n)

/** The payment whose life moved last (the newest update; of two at once, the newer payment). */
export function latestPayment(payments: EscrowPayment[]): EscrowPayment | undefined {
  let latest: EscrowPayment | undefined
  for (const p of payments)
    if (
      !latest ||
      p.updated_at > latest.updated_at ||
      (p.updated_at === latest.updated_at && p.created_at > latest.created_at)
    )
      latest = p
  return latest
}

/**
 * A payment's life from its amounts, in the order the escrow allows them: `held 0.01 → captured 0.006 → voided 0.004
 * → refunded 0.002`; what is still held after a capture is said (`held 0.01 → captured 0.006 USDC (0.004 still held)`); the
 * authorization flow's one charge: `charged 0.007`.
 */
export function escrowLife(
  p: Pick<EscrowPayment, 'flow' | 'authorized' | 'captured' | 'voided' | 'reclaimed' | 'refunded' | 'capturable'>,
): string {
  const steps: [string, string][] =
    p.flow === 'authorization'
      ? [['charged', p.captured]]
      : [
          ['held', p.authorized],
          ['captured', p.captured],
        ]
  const all: [string, string][] = [...steps, ['voided', p.voided], ['reclaimed', p.reclaimed], ['refunded', p.refunded]]
  const life = all.filter(([, amount], i) => i === 0 || BigInt(amount) > 0n)
  const still = life.length > 1 && isHeld(p) ? ` (${usdc(p.capturable)} still held)` : ''
  return `${life.map(([step, amount]) => `${step} ${usdc(amount)}`).join(' → ')} USDC${still}`
}

/**
 * Where an escrow payment's settlement stands, for its row among the settlements (the row's amount is what the seller
 * kept: captured − refunded): `held 0.01`, `captured 0.006, held 0.004`, `captured 0.006 of 0.01`, `refunded 0.002 of
 * 0.006`, `refunded 0.006`, `voided`, `reclaimed`.
 */
export function escrowStatus(e: NonNullable<Settlement['escrow']>): string {
  const captured = BigInt(e.captured)
  const held = BigInt(e.authorized) - captured - BigInt(e.voided) - BigInt(e.reclaimed)
  switch (e.state) {
    case 'authorized':
      return captured > 0n ? `captured ${usdc(captured)}, held ${usdc(held)}` : `held ${usdc(held)}`
    case 'captured':
    case 'charged':
      if (BigInt(e.refunded) > 0n) return `refunded ${usdc(e.refunded)} of ${usdc(captured)}`
      return e.authorized === e.captured
        ? `${e.state} ${usdc(captured)}`
        : `${e.state} ${usdc(captured)} of ${usdc(e.authorized)}`
    case 'refunded':
      return `refunded ${usdc(e.refunded)}`
    default:
      return e.state
  }
}

/** The colour of an escrow settlement's status (a state's). */
export const escrowStatusColor = (e: NonNullable<Settlement['escrow']>) => stateColor[e.state]

/** The first line's forms, fullest first: each state's count and the next capture deadline, then shorter. */
function summaryForms(payments: EscrowPayment[], now: number): string[] {
  const held = payments.filter(isHeld)
  const counted = states
    .map((state) => [state, payments.filter((p) => p.state === state).length] as const)
    .filter(([, count]) => count > 0)
    .map(([state, count]) => `${count} ${stateWord(state)}`)
    .join(', ')
  // The next deadline of what is still held, by svc's clock; a hold past its deadline is the buyer's to reclaim.
  const nowSeconds = Math.floor(now / 1000)
  const next = Math.min(...held.map((p) => p.capture_deadline).filter((deadline) => deadline > nowSeconds))
  const past = held.filter((p) => p.capture_deadline <= nowSeconds).length
  const left = Number.isFinite(next) ? formatTtl(new Date(next * 1000).toISOString(), now) : ''
  const deadlines = (long: boolean, clock: boolean) =>
    [
      left ? `${long ? 'next capture deadline in' : 'capture within'} ${left}${clock ? " (svc's clock)" : ''}` : '',
      past ? (long ? `${past} past its capture deadline (the buyer's to reclaim)` : `${past} reclaimable`) : '',
      held.length ? '' : 'nothing held',
    ]
      .filter(Boolean)
      .map((part) => ` · ${part}`)
      .join('')
  const label = (names: boolean) => `  escrow (${names ? counted : `${payments.length} payments, ${held.length} held`})`
  return [
    `${label(true)}${deadlines(true, true)}`,
    `${label(true)}${deadlines(true, false)}`,
    `${label(true)}${deadlines(false, false)}`,
    `${label(false)}${deadlines(false, false)}`,
  ]
}

/** The money in all, one line: held, captured, voided, refunded, reclaimed; what is 0 of the last three gives way. */
function totalsLine(payments: EscrowPayment[], width: number): string {
  const amounts = [
    ['held', sum(payments.filter(isHeld), (p) => p.capturable)],
    ['captured', sum(payments, (p) => p.captured)],
    ['voided', sum(payments, (p) => p.voided)],
    ['refunded', sum(payments, (p) => p.refunded)],
    ['reclaimed', sum(payments, (p) => p.reclaimed)],
  ] as const
  const line = (all: boolean) =>
    `    ${amounts
      .filter(([, amount], i) => all || i < 2 || amount > 0n)
      .map(([name, amount]) => `${name} ${usdc(amount)}`)
      .join('  ')} USDC`
  const whole = line(true)
  return whole.length <= width ? whole : line(false)
}

/** The latest payment's line: `latest`, method and path, its life, then (as the width allows) capture mode and payer. */
function latestLine(p: EscrowPayment, width: number) {
  const life = ` ${escrowLife(p)}`
  const request = `${p.method} ${p.path}`
  const forms = [
    { label: '    latest ', extras: `${p.capture_mode ? ` · ${p.capture_mode}` : ''} · payer ${shortHex(p.payer)}` },
    { label: '    latest ', extras: p.capture_mode ? ` · ${p.capture_mode}` : '' },
    { label: '    latest ', extras: '' },
    { label: '    ', extras: '' },
  ]
  const length = (form: (typeof forms)[number], path: string) =>
    form.label.length + path.length + life.length + form.extras.length
  const form = forms.find((one) => length(one, request) <= width) ?? forms.at(-1)!
  // Too narrow even so: the path gives way (to no fewer than 8 columns) before the life is cut.
  return { ...form, request: fit(request, Math.max(8, width - length(form, ''))), life }
}

/**
 * Three lines while buyers have escrow payments (x402 auth-capture) to the seller's APIs on the running chain: how
 * many are in each state and the next capture deadline of what is held (by svc's clock: `svc time advance` moves it);
 * the money held, captured, voided, refunded and reclaimed in all; then the payment whose life moved last, its request
 * and each step of its life (`held 0.01 → captured 0.006 → voided 0.004 → refunded 0.002`), coloured by its state.
 * Each line is the fullest form that fits the terminal's width.
 */
export const EscrowLine = memo(function EscrowLine({ payments, now, width = 100 }: EscrowLineProps) {
  const current = currentOf(payments)
  if (!current.length) return null
  const forms = summaryForms(current, now)
  const summary = forms.find((form) => form.length <= width) ?? forms.at(-1)!
  const cut = summary.indexOf(')') + 1
  const latest = latestPayment(current)!
  const line = latestLine(latest, width)
  return (
    <>
      <Text wrap="truncate-end">
        <Text color="cyan">{summary.slice(0, cut)}</Text>
        <Text>{summary.slice(cut)}</Text>
      </Text>
      <Text wrap="truncate-end">{totalsLine(current, width)}</Text>
      <Text wrap="truncate-end">
        {line.label}
        <Text bold>{line.request}</Text>
        <Text color={stateColor[latest.state]}>{line.life}</Text>
        <Text dimColor>{line.extras}</Text>
      </Text>
    </>
  )
})
