/**
 * Issue 39 item 4: the dashboard shows escrow payments (x402 auth-capture). The escrow lines (each state's count and
 * the next capture deadline by svc's clock, the money in all, the payment that moved last and its life), and each
 * escrow settlement's state in the settlements panel, for each state and width: in 80 columns nothing is cut.
 */
import { Box } from 'ink'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, test } from 'vitest'
import type { EscrowPayment } from '../../sdk/types.js'
import {
  EscrowLine,
  escrowLife,
  escrowLineCountsDown,
  escrowLineLines,
  escrowStatus,
  latestPayment,
} from '../../tui/components/EscrowLine.js'
import { SettlementsPanel } from '../../tui/components/SettlementsPanel.js'
import {
  apiOf,
  escrowPayment,
  escrowSummaryOf,
  feedOf,
  linesOf,
  now,
  renderAt,
  settlement,
  usdc,
} from './dashboard-fixtures.js'

afterEach(() => cleanup())

const minute = (m: number) => `2026-01-01T11:${String(m).padStart(2, '0')}:00.000Z`

/** One deferred payment of 0.01 at each step of its life (the fixture's payment: held until `now` + 250 s). */
const life = {
  held: escrowPayment({}),
  partlyCaptured: escrowPayment({ captured: '6000', capturable: '4000', refundable: '6000', updated_at: minute(58) }),
  restVoided: escrowPayment({
    captured: '6000',
    voided: '4000',
    capturable: '0',
    refundable: '6000',
    state: 'captured',
    updated_at: minute(59),
  }),
  partRefunded: escrowPayment({
    captured: '6000',
    voided: '4000',
    refunded: '2000',
    capturable: '0',
    refundable: '4000',
    state: 'captured',
    updated_at: minute(59),
  }),
}
const voided = escrowPayment({ id: 'esc_v', voided: '10000', capturable: '0', state: 'voided', capture_mode: 'sync' })
const reclaimed = escrowPayment({ id: 'esc_r', reclaimed: '10000', capturable: '0', state: 'reclaimed' })
const syncCaptured = escrowPayment({
  id: 'esc_s',
  captured: '10000',
  capturable: '0',
  refundable: '10000',
  state: 'captured',
  capture_mode: 'sync',
})
const charged = escrowPayment({
  id: 'esc_c',
  flow: 'authorization',
  capture_mode: null,
  authorized: '7000',
  captured: '7000',
  capturable: '0',
  refundable: '7000',
  state: 'charged',
})
const allRefunded = escrowPayment({
  id: 'esc_f',
  captured: '10000',
  refunded: '10000',
  capturable: '0',
  state: 'refunded',
})

/** The escrow lines at `width` columns, trailing spaces removed. */
const linesAt = (width: number, payments: EscrowPayment[] | undefined, at = now) =>
  linesOf(
    renderAt(
      width,
      <Box flexDirection="column">
        <EscrowLine payments={payments} now={at} width={width} />
      </Box>,
    ).lastFrame(),
  )

/** Every line fits `width` columns and none was cut (Ink's truncation ends a line with "…"). */
function expectWhole(lines: string[], width = 80) {
  for (const line of lines) {
    expect(line.length, line).toBeLessThanOrEqual(width)
    expect(line, `a line cut at ${width} columns`).not.toMatch(/…/)
  }
}

describe('the escrow lines', () => {
  test('are not drawn without an escrow payment on the running chain (those of an earlier chain are gone with it)', () => {
    expect(escrowLineLines(undefined)).toBe(0)
    expect(escrowLineLines([])).toBe(0)
    expect(render(<EscrowLine payments={[]} now={now} />).lastFrame()).toBe('')
    const old = { ...life.held, old_chain: true }
    expect(escrowLineLines([old])).toBe(0)
    expect(render(<EscrowLine payments={[old]} now={now} />).lastFrame()).toBe('')
    expect(escrowLineLines([life.held])).toBe(3)
  })

  test('follow one deferred payment: held, partly captured, the rest voided, part refunded (100 columns)', () => {
    expect(linesAt(100, [life.held])).toEqual([
      "  escrow (1 held) · next capture deadline in 4m10s (svc's clock)",
      '    held 0.01  captured 0  voided 0  refunded 0  reclaimed 0 USDC',
      '    latest GET /book held 0.01 USDC · deferred · payer 0x1234…abcd',
    ])
    expect(linesAt(100, [life.partlyCaptured])).toEqual([
      "  escrow (1 held) · next capture deadline in 4m10s (svc's clock)",
      '    held 0.004  captured 0.006  voided 0  refunded 0  reclaimed 0 USDC',
      '    latest GET /book held 0.01 → captured 0.006 USDC (0.004 still held) · deferred',
    ])
    expect(linesAt(100, [life.restVoided])).toEqual([
      '  escrow (1 captured) · nothing held',
      '    held 0  captured 0.006  voided 0.004  refunded 0  reclaimed 0 USDC',
      '    latest GET /book held 0.01 → captured 0.006 → voided 0.004 USDC · deferred · payer 0x1234…abcd',
    ])
    expect(linesAt(100, [life.partRefunded])).toEqual([
      '  escrow (1 captured) · nothing held',
      '    held 0  captured 0.006  voided 0.004  refunded 0.002  reclaimed 0 USDC',
      '    latest GET /book held 0.01 → captured 0.006 → voided 0.004 → refunded 0.002 USDC · deferred',
    ])
  })

  test('the other ends: captured in the request (sync), voided, reclaimed, charged, refunded whole', () => {
    const latestOf = (p: EscrowPayment) => linesAt(100, [p])[2]
    expect(latestOf(syncCaptured)).toBe(
      '    latest GET /book held 0.01 → captured 0.01 USDC · sync · payer 0x1234…abcd',
    )
    expect(latestOf(voided)).toBe('    latest GET /book held 0.01 → voided 0.01 USDC · sync · payer 0x1234…abcd')
    expect(latestOf(reclaimed)).toBe(
      '    latest GET /book held 0.01 → reclaimed 0.01 USDC · deferred · payer 0x1234…abcd',
    )
    expect(latestOf(charged)).toBe('    latest GET /book charged 0.007 USDC · payer 0x1234…abcd')
    expect(escrowLife(allRefunded)).toBe('held 0.01 → captured 0.01 → refunded 0.01 USDC')
  })

  test('several payments: each state counted, the money summed, the one that moved last shown', () => {
    const other = escrowPayment({ id: 'esc_2', path: '/rooms/12', authorized: '20000', capturable: '20000' })
    const payments = [other, life.partRefunded, voided, reclaimed, charged]
    expect(latestPayment(payments)?.id).toBe(life.partRefunded.id)
    expect(linesAt(120, payments)).toEqual([
      "  escrow (1 held, 1 captured, 1 charged, 1 voided, 1 reclaimed) · next capture deadline in 4m10s (svc's clock)",
      '    held 0.02  captured 0.013  voided 0.014  refunded 0.002  reclaimed 0.01 USDC',
      '    latest GET /book held 0.01 → captured 0.006 → voided 0.004 → refunded 0.002 USDC · deferred · payer 0x1234…abcd',
    ])
    // A classic 80-column terminal: the clock's name, the states' names, the payer and `latest` give way, nothing is cut.
    const narrow = linesAt(80, payments)
    expect(narrow).toEqual([
      '  escrow (5 payments, 1 held) · capture within 4m10s',
      '    held 0.02  captured 0.013  voided 0.014  refunded 0.002  reclaimed 0.01 USDC',
      '    GET /book held 0.01 → captured 0.006 → voided 0.004 → refunded 0.002 USDC',
    ])
    expectWhole(narrow)
    // Narrower: the states are counted, what is 0 of voided, refunded and reclaimed goes, then `latest`.
    const sixty = linesAt(60, [other, life.restVoided])
    expect(sixty).toEqual([
      '  escrow (1 held, 1 captured) · capture within 4m10s',
      '    held 0.02  captured 0.006  voided 0.004 USDC',
      '    GET /book held 0.01 → captured 0.006 → voided 0.004 USDC',
    ])
    expectWhole(sixty, 60)
    expect(linesAt(50, payments)[0]).toBe('  escrow (5 payments, 1 held) · capture within 4m…')
  })

  test('a long path gives way before the life; the deadline counts down by svc’s clock, then says the buyer may reclaim', () => {
    const long = escrowPayment({ path: '/bookings/hotel-de-la-plage/rooms/1204/nights' })
    const [, , latest] = linesAt(80, [long])
    expect(latest).toBe('    latest GET /bookings/hotel-de-la-plage/rooms/1204/nights held 0.01 USDC')
    const partly = { ...long, captured: '6000', capturable: '4000', updated_at: minute(58) }
    const [, , cut] = linesAt(80, [partly])
    expect(cut).toBe('    GET /bookings/hotel-de-l… held 0.01 → captured 0.006 USDC (0.004 still held)')
    expect(cut).toHaveLength(80)
    // svc's clock 4 minutes on (`svc time advance`), then past the deadline.
    expect(linesAt(100, [life.held], now + 240_000)[0]).toBe(
      "  escrow (1 held) · next capture deadline in 10s (svc's clock)",
    )
    expect(linesAt(100, [life.held], now + 251_000)[0]).toBe(
      "  escrow (1 held) · 1 past its capture deadline (the buyer's to reclaim)",
    )
    expect(
      linesAt(
        100,
        [life.held, { ...life.held, id: 'esc_9', capture_deadline: life.held.capture_deadline + 3600 }],
        now + 251_000,
      )[0],
    ).toBe(
      // Both do not fit 100 columns in full: the short forms.
      '  escrow (2 held) · capture within 59m59s · 1 reclaimable',
    )
    expect(escrowLineCountsDown([life.held])).toBe(true)
    expect(escrowLineCountsDown([life.restVoided, reclaimed])).toBe(false)
  })
})

describe('escrow settlements in the settlements panel', () => {
  test('each row says where its escrow payment stands instead of "delivered"; an exact one is unchanged', () => {
    const statuses = [
      life.held,
      life.partlyCaptured,
      life.restVoided,
      life.partRefunded,
      voided,
      reclaimed,
      charged,
      allRefunded,
    ].map((p) => escrowStatus(escrowSummaryOf(p)))
    expect(statuses).toEqual([
      'held 0.01',
      'captured 0.006, held 0.004',
      'captured 0.006 of 0.01',
      'refunded 0.002 of 0.006',
      'voided',
      'reclaimed',
      'charged 0.007',
      'refunded 0.01',
    ])
    const row = (i: number, p: EscrowPayment) => ({
      ...settlement(`stl_${i}`, minute(50 - i), p.path),
      amount: String(BigInt(p.captured) - BigInt(p.refunded)),
      escrow: escrowSummaryOf(p),
    })
    const rows = [
      row(0, life.partlyCaptured),
      row(1, life.partRefunded),
      row(2, voided),
      { ...row(3, life.held), delivered: false },
      settlement('stl_exact', minute(40), '/weather/oslo'),
    ]
    const apis = [{ api: apiOf('api_1', 'Bookings', 'bookings'), endpoints: [] }]
    const panel = (width: number) =>
      linesOf(
        renderAt(
          width,
          <SettlementsPanel loggedIn settlements={{ data: feedOf(rows) }} usdc={usdc} apis={apis} width={width} />,
        ).lastFrame(),
      )
    const lines = panel(80)
    expect(lines.slice(1).map((line) => line.slice(10))).toEqual([
      '  bookings GET /book            0.006 USDC  captured 0.006, held 0.004',
      '  bookings GET /book            0.004 USDC  refunded 0.002 of 0.006',
      '  bookings GET /book            0 USDC      voided',
      '  bookings GET /book            0 USDC      held 0.01, no answer',
      '  bookings GET /weather/oslo    0.025 USDC  delivered',
    ])
    expectWhole(lines)
    // Wide: the payer and the transaction follow, in columns.
    expect(panel(120)[2]).toMatch(
      /^ {2}\d\d:\d\d:\d\d {2}bookings GET \/book +0\.004 USDC {2}refunded 0\.002 of 0\.006 {5}from 0x1234…abcd {2}tx 0xab12…ab12$/,
    )
    // Without an escrow settlement, the columns are as they were.
    expect(
      linesOf(
        renderAt(
          80,
          <SettlementsPanel loggedIn settlements={{ data: feedOf([rows[4]!]) }} usdc={usdc} apis={apis} width={80} />,
        ).lastFrame(),
      )[1],
    ).toMatch(/^ {2}\d\d:\d\d:\d\d {2}bookings GET \/weather\/oslo +0\.025 USDC {2}delivered {2}from 0x1234…abcd$/)
  })
})
