/**
 * Issue 35, item 8: what a seller demoing svc wants to see, against a real svc (real chain, real payments through the
 * gateway): the balance of the address the APIs pay to, the revenue since the dashboard opened, and each settlement's
 * answer status and the API (its upstream where the width allows) it served; in 80×24 and wider.
 */
import { cleanup, render } from 'ink-testing-library'
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest'
import { createSvcClient } from '../../sdk/client.js'
import { App } from '../../tui/App.js'
import { formatClock, formatUsdc, shortHex } from '../../tui/format.js'
import { createSettlementFeed } from '../../tui/settlement-feed.js'
import {
  addEndpoint,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
  type Seller,
} from '../server/gateway/helpers.js'
import { linesOf } from './dashboard-fixtures.js'
import { dashboardUrls } from './dashboard-urls.js'

let stack: GatewayStack
let seller: Seller
let gateway: string
let apiId: string

beforeAll(async () => {
  stack = await startGatewayStack()
  const { t, services, upstream } = stack
  seller = await newSeller(t)
  const api = await t.call('/apis', {
    jwt: seller.jwt,
    environment: 'development',
    body: {
      name: 'Weather',
      slug: 'weather',
      upstream_base_url: upstream.url,
      pay_to_mode: 'user_wallet',
      pay_to_address: seller.payTo,
    },
  })
  expect(api.status).toBe(201)
  gateway = t.gatewayUrl('weather')
  apiId = api.body.id
  await addEndpoint(t, seller, api.body.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(services, '25000')],
  })
  // Upfront: settled before the upstream is called, so an upstream that fails leaves the buyer charged, no answer.
  await addEndpoint(t, seller, api.body.id, {
    method: 'GET',
    path_pattern: '/status/{code}',
    accepts: [{ ...sandboxAccept(services, '20000'), extra: { paymentFlow: 'upfront' } }],
  })
})
afterEach(() => cleanup())
afterAll(async () => {
  await stack?.stop()
})

/** Resizes the terminal the dashboard draws in. */
function resize(app: ReturnType<typeof render>, columns: number, rows: number) {
  Object.defineProperty(app.stdout, 'columns', { value: columns, configurable: true })
  Object.defineProperty(app.stdout, 'rows', { value: rows, configurable: true })
  app.stdout.emit('resize')
}

test('the pay-to balance, the revenue since the dashboard opened, and each settlement’s answer status and API, in 80×24', async () => {
  const { t, services, buyer, upstream } = stack
  const pay = payingFetch(services, buyer)
  // Paid before the dashboard opens: on the pay-to balance, not in the session's revenue.
  expect((await pay(`${gateway}/weather/Before`)).status).toBe(200)

  const openedFrom = Date.now()
  const app = render(<App urls={dashboardUrls(t.server, services)} session={{ jwt: seller.jwt }} refreshMs={200} />)
  const openedTo = Date.now()
  resize(app, 80, 24)
  const frame = () => app.lastFrame() ?? ''
  const payToLine = () => linesOf(frame()).find((line) => line.startsWith('  pay-to ')) ?? ''
  const payTo = shortHex(seller.payTo)
  await expect
    .poll(payToLine, { timeout: 20_000 })
    .toMatch(
      new RegExp(
        `^ {2}pay-to ${payTo} {2}0\\.025 USDC {2}· {2}revenue 0 USDC since \\d\\d:\\d\\d:\\d\\d \\(0 paid\\)$`,
      ),
    )
  // The session began when the dashboard opened: its own clock then.
  const opened = new Set([
    formatClock(new Date(openedFrom).toISOString()),
    formatClock(new Date(openedTo).toISOString()),
  ])
  expect(opened).toContain(/since (\S+)/.exec(payToLine())![1])

  // Two payments while it runs: one answered, one charged upfront whose upstream failed (503).
  expect((await pay(`${gateway}/weather/Paris`)).status).toBe(200)
  expect((await pay(`${gateway}/status/503`)).status).toBe(502)
  const onChain = await usdcBalance(services, seller.payTo)
  expect(onChain).toBe(70000n)

  await expect
    .poll(payToLine, { timeout: 20_000 })
    .toMatch(new RegExp(`^ {2}pay-to ${payTo} {2}0\\.07 USDC {2}· {2}revenue 0\\.045 USDC since \\S+ \\(2 paid\\)$`))
  expect(payToLine()).toContain(`pay-to ${payTo}  ${formatUsdc(onChain)}`)
  const settlementLine = (path: string) => linesOf(frame()).find((line) => line.includes(`GET ${path} `)) ?? ''
  await expect.poll(() => settlementLine('/status/503'), { timeout: 20_000 }).toContain('no answer')
  const from = `from ${shortHex(buyer.address)}`
  expect(settlementLine('/status/503')).toMatch(
    new RegExp(`^ {2}\\d\\d:\\d\\d:\\d\\d {2}weather GET /status/503 +0\\.02 USDC {3}no answer {2}${from}$`),
  )
  expect(settlementLine('/weather/Paris')).toMatch(
    new RegExp(`^ {2}\\d\\d:\\d\\d:\\d\\d {2}weather GET /weather/Paris +0\\.025 USDC {2}delivered {2}${from}$`),
  )
  expect(settlementLine('/weather/Before')).toMatch(/weather GET \/weather\/Before +0\.025 USDC {2}delivered/)
  // The ledger says the same: charged and not delivered.
  const rows = await stack.settlementsOf(apiId)
  expect(rows.map((row) => [row.path, row.delivered])).toEqual([
    ['/weather/Before', 1],
    ['/weather/Paris', 1],
    ['/status/503', 0],
  ])

  // Everything fits 80×24: fewer lines than the terminal's rows, none wider than 80 or cut.
  const lines = linesOf(frame())
  expect(lines.length).toBeLessThan(24)
  for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
  for (const line of [payToLine(), ...['/status/503', '/weather/Paris', '/weather/Before'].map(settlementLine)])
    expect(line, 'a line cut at 80 columns').not.toMatch(/…$/)
  expect(frame()).toMatch(/^Settlements {2}newest first$/m)

  // Wider: the whole pay-to address, and each settlement's transaction and the upstream it served.
  resize(app, 140, 30)
  const host = new URL(upstream.url).host
  await expect.poll(() => settlementLine('/status/503'), { timeout: 10_000 }).toContain(`via ${host}`)
  expect(settlementLine('/status/503')).toMatch(
    new RegExp(
      `weather GET /status/503 +0\\.02 USDC {3}no answer {2}${from} {2}tx 0x[0-9a-f]{4}…[0-9a-f]{4} {2}via ${host}$`,
    ),
  )
  expect(settlementLine('/weather/Paris')).toMatch(
    new RegExp(`delivered {2}${from} {2}tx 0x[0-9a-f]{4}…[0-9a-f]{4} {2}via ${host}$`),
  )
  expect(payToLine()).toMatch(
    new RegExp(`^ {2}pay-to ${seller.payTo} {2}0\\.07 USDC {2}· {2}revenue 0\\.045 USDC since \\S+ \\(2 paid\\)$`),
  )
  for (const line of linesOf(frame())) expect(line.length, line).toBeLessThanOrEqual(140)
})

test('the revenue of a session longer than a page is summed from every settlement since it began', async () => {
  const { t } = stack
  const client = createSvcClient({ baseUrl: t.server.sandboxControlUrl, jwt: seller.jwt, environment: 'development' })
  const [, since] = (await client.settlements.list({ limit: 3 })).settlements.map((s) => s.created_at).reverse()
  // Pages of one: the newest page does not reach back to `since`, so the feed lists what came since, page by page.
  const feed = await createSettlementFeed(client, { pageSize: 1, countPageSize: 1, since })()
  expect(feed.session).toEqual({
    since,
    count: 2,
    amounts: { [stack.services.sandboxChain.usdc.address.toLowerCase()]: '45000' },
  })
  expect(feed.current).toBe(3)
})
