import { randomBytes } from 'node:crypto'
import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSvcClient } from '../../sdk/client.js'
import { newId, nowIso } from '../../server/ids.js'
import { App } from '../../tui/App.js'
import { createSettlementFeed } from '../../tui/settlement-feed.js'
import { payingFetch, startGatewayStack, type GatewayStack } from '../server/gateway/helpers.js'
import { newAccount } from '../helpers/payments.js'
import { dashboardUrls } from './dashboard-urls.js'

let stack: GatewayStack

beforeAll(async () => {
  stack = await startGatewayStack()
})
afterAll(async () => {
  cleanup()
  await stack?.stop()
})

test('the dashboard shows the chain, the wallet, the APIs and a settlement live, and `f` funds the wallet', async () => {
  const { services, t, upstream, buyer } = stack
  const { jwt } = await t.signup()
  const asSeller = { jwt, environment: 'development' }
  const slug = `dash-${process.pid}`
  const api = await t.call('/apis', {
    ...asSeller,
    body: {
      name: 'Dashboard weather',
      slug,
      upstream_base_url: upstream.url,
      pay_to_mode: 'user_wallet',
      pay_to_address: newAccount().address,
    },
  })
  expect(api.status).toBe(201)
  const accept = (amount: string) => ({
    scheme: 'exact',
    network: services.sandboxChain.network,
    asset: services.sandboxChain.usdc.address,
    amount,
    max_timeout_seconds: 300,
  })
  const schemas = { request_schema: { type: 'object' }, response_schema: { type: 'object' } }
  for (const body of [
    { method: 'GET', path_pattern: '/weather/{city}', accepts: [accept('25000')], ...schemas },
    { method: 'GET', path_pattern: '/files/*', accepts: [accept('10000')], ttl: 600, ...schemas },
  ])
    expect((await t.call(`/apis/${api.body.id}/endpoints`, { ...asSeller, body })).status).toBe(201)
  const wallet = (await t.call('/sandbox-wallet', asSeller)).body as { address: string; private_key: string }

  const { lastFrame, frames, stdin } = render(
    <App urls={dashboardUrls(t.server, services)} session={{ jwt }} refreshMs={200} />,
  )
  const frame = () => lastFrame() ?? ''
  const waitForFrame = (check: (text: string) => boolean, timeoutMs = 15_000) =>
    expect.poll(frame, { timeout: timeoutMs }).toSatisfy(check)

  // The chain, the APIs with their prices and countdown, the wallet with its background funding.
  await waitForFrame(
    (text) => /block #\d/.test(text) && text.includes('/weather/{city}') && text.includes('1,000 USDC'),
  )
  expect(frame()).toContain(`chain 845320402 (eip155:845320402) · block #`)
  expect(frame()).toContain(`Sandbox wallet  ${wallet.address}`)
  expect(frame()).toMatch(/GET {4}\/weather\/\{city\} +0\.025 USDC +no ttl +on/)
  expect(frame()).toMatch(/GET {4}\/files\/\* +0\.01 USDC +ttl (10m00s|9m\d\ds) +on/)
  expect(frame()).toContain('1,000 USDC  ·  10 ETH')

  // A paid request shows up among the settlements.
  const paid = await payingFetch(services, buyer)(`${t.gatewayUrl(slug)}/weather/Paris`)
  expect(paid.status).toBe(200)
  await waitForFrame((text) => text.includes('GET /weather/Paris'))
  expect(frame()).toMatch(
    new RegExp(
      `${slug} GET /weather/Paris +0\\.025 USDC {2}delivered {2}from ${buyer.address.slice(0, 6)}…${buyer.address.slice(-4)} +tx 0x[0-9a-f]{4}…[0-9a-f]{4}`,
    ),
  )

  // `f`: "funding…", then the result, and the balances follow.
  await expect.poll(() => stdin.listenerCount('readable')).toBeGreaterThan(0)
  stdin.write('f')
  await waitForFrame((text) => text.includes('✔ sent 10 ETH and 1,000 USDC') && text.includes('2,000 USDC  ·  20 ETH'))
  expect(frames.some((f) => f.includes(`funding ${wallet.address.slice(0, 6)}…`))).toBe(true)

  for (const f of frames) expect(f).not.toContain(wallet.private_key.slice(6, -4))

  // `q` ends the app: Ink lets go of stdin.
  stdin.write('q')
  await expect.poll(() => stdin.listenerCount('readable')).toBe(0)
})

/** A seller with one Sandbox API (no endpoints) whose wallet has its first funds. */
async function sellerWithApi(name: string) {
  const { t, upstream } = stack
  const { jwt, userId } = await t.signup()
  const asSeller = { jwt, environment: 'development' }
  const wallet = (await t.call('/sandbox-wallet', asSeller)).body as { address: string }
  const funded = async () =>
    BigInt((await t.call('/dev/balances', { ...asSeller, body: { address: wallet.address } })).body.usdc_base) > 0n
  await expect.poll(funded, { timeout: 20_000 }).toBe(true)
  const slug = `${name.toLowerCase()}-${process.pid}`
  const api = await t.call('/apis', {
    ...asSeller,
    body: { name, slug, upstream_base_url: upstream.url, pay_to_mode: 'user_wallet', pay_to_address: wallet.address },
  })
  expect(api.status).toBe(201)
  return { jwt, userId, wallet, api: api.body as { id: string } }
}

/** Settlements as the gateway records them, `count` of them, on the running chain or on an earlier one. */
async function recordSettlements(
  seller: { userId: string; api: { id: string }; wallet: { address: string } },
  count: number,
  earlierChain = false,
) {
  const { services, t, buyer } = stack
  for (let i = 0; i < count; i++) {
    await t.server.database.db
      .insertInto('settlements')
      .values({
        id: newId('stl'),
        api_id: seller.api.id,
        endpoint_id: null,
        user_id: seller.userId,
        environment: 'development',
        network: services.sandboxChain.network,
        asset: services.sandboxChain.usdc.address,
        amount: '10000',
        payer: buyer.address,
        pay_to: seller.wallet.address,
        transaction: `0x${randomBytes(32).toString('hex')}`,
        method: 'GET',
        path: earlierChain ? `/old/${i}` : `/paid/${i}`,
        created_at: nowIso(),
        chain_epoch: earlierChain ? 'fedcba9876543210' : services.sandboxChain.epoch,
      })
      .execute()
  }
}

test('"… n more settlements" counts every settlement of the running chain, not one page; those of an earlier chain are left out', async () => {
  const { services, t } = stack
  const seller = await sellerWithApi('Counted')
  await recordSettlements(seller, 3, true)
  await recordSettlements(seller, 14)

  // The loader: a page of the newest, and the rest counted page by page.
  const load = createSettlementFeed(
    createSvcClient({ baseUrl: t.server.sandboxControlUrl, jwt: seller.jwt, environment: 'development' }),
    { pageSize: 4, countPageSize: 3 },
  )
  const first = await load()
  expect(first.newest).toHaveLength(4)
  expect({ current: first.current, old: first.old }).toEqual({ current: 14, old: 3 })

  // The dashboard in 24 lines: fewer than the settlements; the last line counts the others.
  const { lastFrame } = render(
    <App urls={dashboardUrls(t.server, services)} session={{ jwt: seller.jwt }} refreshMs={200} />,
  )
  const frame = () => lastFrame() ?? ''
  await expect.poll(frame, { timeout: 15_000 }).toMatch(/… \d+ more settlements/)
  const shown = () => frame().match(/GET \/paid\/\d+/g)?.length ?? 0
  expect(frame()).toContain(`… ${14 - shown()} more settlements`)
  expect(frame()).toContain('Settlements  newest first (3 from an earlier chain not shown)')
  expect(frame()).not.toContain('/old/')

  // One more: the count follows (the rest is counted again when the newest page changed).
  await recordSettlements(seller, 1)
  await expect.poll(() => frame().includes(`… ${15 - shown()} more settlements`), { timeout: 15_000 }).toBe(true)
  expect((await load()).current).toBe(15)
})

test('after a login change the faucet line is the new session’s: the previous wallet’s transaction is gone', async () => {
  const { services, t } = stack
  const [alice, bob] = [await sellerWithApi('Alice'), await sellerWithApi('Bob')]
  let current = { jwt: alice.jwt }
  const { lastFrame, stdin } = render(
    <App urls={dashboardUrls(t.server, services)} getSession={() => current} refreshMs={200} />,
  )
  const frame = () => lastFrame() ?? ''
  await expect.poll(frame, { timeout: 15_000 }).toContain(alice.wallet.address)
  await expect.poll(() => stdin.listenerCount('readable')).toBeGreaterThan(0)
  stdin.write('f')
  await expect.poll(frame, { timeout: 15_000 }).toContain('✔ sent 10 ETH and 1,000 USDC')

  // `svc login` as another seller (the CLI's saved session changes).
  current = { jwt: bob.jwt }
  await expect.poll(frame, { timeout: 15_000 }).toContain(bob.wallet.address)
  expect(frame()).not.toContain(alice.wallet.address)
  expect(frame()).not.toContain('✔ sent')
  expect(frame()).toContain('faucet  press f to send ETH and USDC to this wallet')
})

test('an idle dashboard draws no frame while its polls find nothing new', async () => {
  const { services, t } = stack
  const seller = await sellerWithApi('Idle')
  let asked = 0
  const getSession = () => (asked++, { jwt: seller.jwt })
  const { lastFrame, frames } = render(
    <App urls={dashboardUrls(t.server, services)} getSession={getSession} refreshMs={50} />,
  )
  const frame = () => lastFrame() ?? ''
  await expect
    .poll(frame, { timeout: 15_000 })
    .toSatisfy(
      (text: string) =>
        /block #\d/.test(text) &&
        text.includes('no endpoints yet') &&
        text.includes('1,000 USDC') &&
        text.includes('none yet: paid'),
    )
  // A few periods for the last loads to land, then forty periods (the session is asked once per period): no frame.
  const from = asked
  await expect.poll(() => asked).toBeGreaterThanOrEqual(from + 5)
  const drawn = frames.length
  await expect.poll(() => asked, { timeout: 15_000 }).toBeGreaterThanOrEqual(from + 45)
  expect(frames.length).toBe(drawn)
})
