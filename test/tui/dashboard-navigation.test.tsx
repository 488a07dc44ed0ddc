/**
 * Issue 20, item 5: the dashboard against a real sandbox with a few APIs, at 80×24 and at 120×40. Settlements are
 * never pushed off screen by the APIs; Tab / Shift-Tab move the focus between the lists, the arrows scroll the focused
 * one, `?` shows every key; `r` says "refreshing…" then "refreshed HH:MM:SS"; a mail whose address is verified takes
 * no line; an upto price reads "up to".
 */
import { randomBytes } from 'node:crypto'
import { cleanup, render } from 'ink-testing-library'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { newId, nowIso } from '../../server/ids.js'
import { App } from '../../tui/App.js'
import { newAccount } from '../helpers/payments.js'
import { startGatewayStack, type GatewayStack } from '../server/gateway/helpers.js'
import { linesOf } from './dashboard-fixtures.js'
import { dashboardUrls } from './dashboard-urls.js'

let stack: GatewayStack
let seller: { jwt: string; userId: string }
const settlementCount = 12

beforeAll(async () => {
  stack = await startGatewayStack()
  const { services, t } = stack
  seller = await t.signup()
  // A second account that has not verified its address: its mail is the one still to act on.
  await t.signup({ verified: false })
  const asSeller = { jwt: seller.jwt, environment: 'development' }
  const accept = (amount: string, scheme = 'exact') => ({
    scheme,
    network: services.sandboxChain.network,
    asset: services.sandboxChain.usdc.address,
    amount,
    max_timeout_seconds: 300,
    ...(scheme === 'upto' ? { extra: { assetTransferMethod: 'permit2' } } : {}),
  })
  let apiId = ''
  // Four APIs of three endpoints: 16 lines, more than 80×24 has for all the lists together.
  for (const name of ['Weather', 'Quotes', 'Maps', 'Files']) {
    const body = {
      name,
      slug: `${name.toLowerCase()}-${process.pid}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: newAccount().address,
    }
    const api = await t.call('/apis', { ...asSeller, body })
    expect(api.status).toBe(201)
    apiId = api.body.id
    for (const [i, path] of ['/a/{id}', '/b/*', '/llm/*'].entries()) {
      const endpoint = { method: 'GET', path_pattern: path, accepts: [accept('100000', i === 2 ? 'upto' : 'exact')] }
      const created = await t.call(`/apis/${apiId}/endpoints`, { ...asSeller, body: endpoint })
      expect(created.status, JSON.stringify(created.body)).toBe(201)
    }
  }
  // Settlements as the gateway records them.
  for (let i = 0; i < settlementCount; i++)
    await t.server.database.db
      .insertInto('settlements')
      .values({
        id: newId('stl'),
        api_id: apiId,
        endpoint_id: null,
        user_id: seller.userId,
        environment: 'development',
        network: services.sandboxChain.network,
        asset: services.sandboxChain.usdc.address,
        amount: '10000',
        payer: newAccount().address,
        pay_to: newAccount().address,
        transaction: `0x${randomBytes(32).toString('hex')}`,
        method: 'GET',
        path: `/paid/${i}`,
        created_at: new Date(Date.parse(nowIso()) - (settlementCount - i) * 1000).toISOString(),
        chain_epoch: services.sandboxChain.epoch,
      })
      .execute()
})
afterEach(() => cleanup())
afterAll(async () => {
  await stack?.stop()
})

/** The dashboard in a terminal of `columns`×`rows`, once every list has loaded. */
async function dashboardAt(columns: number, rows: number) {
  const app = render(
    <App urls={dashboardUrls(stack.t.server, stack.services)} session={{ jwt: seller.jwt }} refreshMs={200} />,
  )
  Object.defineProperty(app.stdout, 'columns', { value: columns, configurable: true })
  Object.defineProperty(app.stdout, 'rows', { value: rows, configurable: true })
  app.stdout.emit('resize')
  const frame = () => app.lastFrame() ?? ''
  await expect
    .poll(
      () =>
        /block #\d/.test(frame()) &&
        /GET \/paid\/\d+/.test(frame()) &&
        frame().includes('4 APIs, 12 endpoints') &&
        frame().includes('svc verify-email'),
      { timeout: 20_000, message: 'the dashboard shows the chain, the APIs and the outbox' },
    )
    .toBe(true)
  await expect.poll(() => app.stdin.listenerCount('readable')).toBeGreaterThan(0)
  const press = async (key: string, until: (text: string) => boolean) => {
    app.stdin.write(key)
    await expect
      .poll(() => until(frame()), { timeout: 5_000, message: `the frame after ${JSON.stringify(key)}` })
      .toBe(true)
  }
  return { ...app, frame, lines: () => linesOf(frame()), press }
}

const settlementLines = (text: string) => text.match(/GET \/paid\/\d+/g)?.length ?? 0

describe('80×24 with four APIs of three endpoints', () => {
  test('the settlements keep their lines, the used mail takes none, every line fits, upto reads "up to"', async () => {
    const { frame, lines } = await dashboardAt(80, 24)
    expect(lines().length).toBeLessThan(24)
    for (const line of lines()) expect(line.length, line).toBeLessThanOrEqual(80)
    // At least three settlements and "… n more" under them, whatever the APIs want.
    expect(settlementLines(frame())).toBeGreaterThanOrEqual(3)
    expect(frame()).toContain(`… ${settlementCount - settlementLines(frame())} more settlements`)
    expect(frame()).toMatch(/… \d+ more lines/)
    expect(frame()).toMatch(/GET {4}\/llm\/\* +up to 0\.1 USDC +no ttl +on$/m)
    // The seller's own mail is spent (the address is verified): counted in the title, not listed.
    expect(frame()).toMatch(/^Outbox {2}.*1 used/m)
    expect(lines().filter((line) => line.includes('svc verify-email'))).toHaveLength(1)
  })

  test('Tab focuses the APIs, then the settlements; ↓ scrolls them; Shift-Tab goes back; ? shows the keys, Esc closes', async () => {
    const { frame, press } = await dashboardAt(80, 24)
    expect(frame()).not.toContain('▸')
    await press('\t', (text) => /^▸ APIs & endpoints/m.test(text))
    const apisLines = frame().match(/… (\d+) more lines/)![1]
    // The focused list gets the lines the others leave: more API lines than before.
    await press('\t', (text) => /^▸ Settlements/m.test(text))
    const firstShown = () => frame().match(/GET \/paid\/(\d+)/)![1]
    const newest = firstShown()
    expect(newest).toBe(String(settlementCount - 1))
    await press('\u001b[B', (text) => text.includes('↑ 1 more settlements above'))
    expect(firstShown()).toBe(String(settlementCount - 2))
    await press('\u001b[B', (text) => text.includes('↑ 2 more settlements above'))
    await press('\u001b[A', (text) => text.includes('↑ 1 more settlements above'))
    // End: the oldest is shown, nothing more below.
    await press('\u001b[F', (text) => text.includes('GET /paid/0') && !/more settlements$/m.test(text))
    await press('\u001b[H', (text) => firstShown() === newest && !text.includes('above'))
    await press('\u001b[Z', (text) => /^▸ APIs & endpoints/m.test(text))
    expect(apisLines).toMatch(/^\d+$/)
    await press('\u001b[B', (text) => text.includes('↑ 1 more lines above'))

    await press('?', (text) => /^Keys {2}\? or Esc closes/m.test(text))
    expect(frame()).toMatch(/^ {2}Tab \/ Shift-Tab {2}move between APIs, Settlements and Outbox/m)
    expect(frame()).toMatch(/^ {2}↑ ↓ +scroll the focused panel a line/m)
    expect(frame()).not.toMatch(/^Settlements/m)
    await press('\u001b', (text) => /^Settlements/m.test(text) && !text.includes('Esc closes'))
  })

  test('`r` says "refreshed HH:MM:SS"', async () => {
    // Against a fast sandbox "refreshing…" may last less than a frame (dashboard-keys.test.tsx holds the answers to
    // see it); what stays is when the refresh ended.
    const { press } = await dashboardAt(80, 24)
    await press('r', (text) => / r {2}refreshed \d\d:\d\d:\d\d/.test(text))
  })
})

test('at 120×40 every API line and settlement shows; nothing is cut', async () => {
  const { frame, lines } = await dashboardAt(120, 40)
  expect(lines().length).toBeLessThan(40)
  for (const line of lines()) expect(line.length, line).toBeLessThanOrEqual(120)
  expect(frame()).toMatch(/GET {4}\/llm\/\* +up to 0\.1 USDC +no ttl +on/)
  expect(frame().match(/up to 0\.1 USDC/g)?.length).toBe(4)
  expect(frame()).not.toMatch(/more lines/)
})
