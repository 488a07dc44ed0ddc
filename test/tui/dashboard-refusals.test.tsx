/**
 * Refused payments on the dashboard (issue 22, item 5): fed by the live event stream, a payment refused for the
 * buyer's balance shows with its reason; the panel is bounded and fits 80 columns.
 */
import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { PaymentEvent } from '../../sdk/types.js'
import { App } from '../../tui/App.js'
import { RefusedPanel, refusedShown } from '../../tui/components/RefusedPanel.js'
import { formatClock } from '../../tui/format.js'
import { paymentEvent } from '../helpers/payment-events.js'
import { newAccount } from '../helpers/payments.js'
import { payingFetch, startGatewayStack, type GatewayStack } from '../server/gateway/helpers.js'
import { linesOf, renderAt, usdc } from './dashboard-fixtures.js'
import { dashboardUrls } from './dashboard-urls.js'

let stack: GatewayStack

beforeAll(async () => {
  stack = await startGatewayStack()
})
afterAll(async () => {
  cleanup()
  await stack?.stop()
})

const refusal = (n: number, overrides: Partial<PaymentEvent> = {}): PaymentEvent =>
  paymentEvent({
    id: `evt_x_${String(n).padStart(9, '0')}`,
    type: 'payment.failed',
    created_at: `2026-01-01T12:00:0${n}.000Z`,
    path: `/weather/city${n}`,
    amount: '10000',
    asset: usdc,
    network: 'eip155:845320402',
    payer: '0x1234567890abcdef1234567890abcdef1234abcd',
    reason: 'invalid_exact_evm_insufficient_balance',
    error: 'the payment is invalid: invalid_exact_evm_insufficient_balance',
    ...overrides,
  })

test('the newest few, each in one line that fits; the title counts them all; none: no panel', () => {
  const newest = [5, 4, 3, 2, 1].map((n) => refusal(n))
  const lines = linesOf(renderAt(80, <RefusedPanel refusals={{ newest, total: 7 }} width={80} />).lastFrame())
  expect(lines).toHaveLength(1 + refusedShown)
  expect(lines[0]).toBe('Refused payments  7 since the dashboard started, newest first')
  // At 80 columns the reason is whole; the payer and the message follow as far as the line goes.
  expect(lines[1]).toBe(
    `  ${formatClock(newest[0]!.created_at)}  weather GET /weather/city5  invalid_exact_evm_insufficient_balance`,
  )
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
  const wide = linesOf(renderAt(160, <RefusedPanel refusals={{ newest, total: 7 }} width={160} />).lastFrame())
  expect(wide[1]).toBe(
    `  ${formatClock(newest[0]!.created_at)}  weather GET /weather/city5  invalid_exact_evm_insufficient_balance  from 0x1234…abcd  the payment is invalid: invalid_exact_evm_insufficient_balance`,
  )
  // A long request gives way to the reason.
  const long = refusal(6, { path: '/a/very/long/path/that/does/not/fit/in/eighty/columns/at/all' })
  const cut = linesOf(renderAt(80, <RefusedPanel refusals={{ newest: [long], total: 1 }} width={80} />).lastFrame())
  expect(cut[1]).toMatch(
    /^ {2}\d\d:\d\d:\d\d {2}weather GET \/a\/very\/long\/pa… {2}invalid_exact_evm_insufficient_balance$/,
  )
  expect(linesOf(renderAt(80, <RefusedPanel refusals={{ newest: [], total: 0 }} width={80} />).lastFrame())).toEqual([
    '',
  ])
})

test('a payment refused for an insufficient balance shows on the live dashboard with its reason, within 80×24', async () => {
  const { services, t, upstream } = stack
  const { jwt, userId } = await t.signup()
  const asSeller = { jwt, environment: 'development' }
  const slug = `refused-${process.pid}`
  const api = await t.call('/apis', {
    ...asSeller,
    body: {
      name: 'Refusals',
      slug,
      upstream_base_url: upstream.url,
      pay_to_mode: 'user_wallet',
      pay_to_address: newAccount().address,
    },
  })
  expect(api.status).toBe(201)
  const accept = {
    scheme: 'exact',
    network: services.sandboxChain.network,
    asset: services.sandboxChain.usdc.address,
    amount: '10000',
    max_timeout_seconds: 300,
  }
  const endpoint = await t.call(`/apis/${api.body.id}/endpoints`, {
    ...asSeller,
    body: { method: 'GET', path_pattern: '/weather/{city}', accepts: [accept], response_schema: { type: 'object' } },
  })
  expect(endpoint.status).toBe(201)

  const app = render(<App urls={dashboardUrls(t.server, services)} session={{ jwt }} refreshMs={200} />)
  Object.defineProperty(app.stdout, 'columns', { value: 80, configurable: true })
  Object.defineProperty(app.stdout, 'rows', { value: 24, configurable: true })
  app.stdout.emit('resize')
  const frame = () => app.lastFrame() ?? ''
  await expect
    .poll(() => /block #\d/.test(frame()) && frame().includes('/weather/{city}'), { timeout: 15_000 })
    .toBe(true)
  expect(frame()).not.toContain('Refused payments')
  // The dashboard listens on the event stream: the gateway builds the seller's events from now on.
  await expect.poll(() => t.server.events.wanted(userId), { timeout: 10_000 }).toBe(true)

  // A buyer with no USDC pays with the official client: the facilitator refuses it at verify.
  const broke = newAccount()
  const response = await payingFetch(services, broke)(`${t.gatewayUrl(slug)}/weather/Lima`)
  expect(response.status).toBe(402)
  await expect.poll(frame, { timeout: 10_000 }).toContain('Refused payments  1 since the dashboard started')
  const line = linesOf(frame()).find((l) => l.includes('invalid_exact_evm_insufficient_balance'))
  expect(line).toMatch(/^ {2}\d\d:\d\d:\d\d {2}refused-\d+ GET \/\S* {2}invalid_exact_evm_insufficient_balance$/)
  expect(linesOf(frame()).length).toBeLessThan(24)
  for (const l of linesOf(frame())) expect(l.length, l).toBeLessThanOrEqual(80)
  // Wider, the request, the payer and what the buyer was told show whole.
  Object.defineProperty(app.stdout, 'columns', { value: 160, configurable: true })
  app.stdout.emit('resize')
  const short = `${broke.address.slice(0, 6)}…${broke.address.slice(-4)}`
  await expect
    .poll(frame)
    .toMatch(
      new RegExp(`${slug} GET /weather/Lima  invalid_exact_evm_insufficient_balance  from ${short}  the payment`),
    )
  app.unmount()
})
