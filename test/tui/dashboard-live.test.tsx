import { cleanup, render } from 'ink-testing-library'
import type { LocalAccount } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { App } from '../../tui/dashboard/App.js'
import type { DashboardOptions } from '../../tui/dashboard/model.js'
import { payingFetch, startUpstream } from '../gateway/helpers.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { newAccount, waitFor } from '../helpers/payments.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let buyer: LocalAccount

beforeAll(async () => {
  services = await startChainServices()
  t = await startTestServer({ chain: services })
  upstream = await startUpstream()
  buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '100')
})
afterAll(async () => {
  cleanup()
  await t?.stop()
  await upstream?.stop()
  await services?.stop()
})

/** What `svc up` hands the dashboard (its ready line), for this test's server and chain. */
function urlsOf(): DashboardOptions['urls'] {
  const { server } = t
  return {
    control_url: server.controlUrl,
    sandbox_control_url: server.sandboxControlUrl,
    gateway_port: server.port,
    rpc_url: services.rpcUrl,
    chain_manager_url: services.chainManagerUrl,
    facilitator_url: services.facilitatorUrl,
    chain_id: services.chain.chainId,
    network: services.chain.network,
    usdc: services.chain.usdc.address,
  }
}

test('the dashboard shows the chain, the wallet, the APIs and a settlement live, and `f` funds the wallet', async () => {
  const { jwt } = await t.signup()
  const asSeller = { jwt, environment: 'development' }
  const slug = `dash-${process.pid}`
  const api = await t.call('/apis', {
    ...asSeller,
    body: { name: 'Dashboard weather', slug, upstream_base_url: upstream.url, pay_to_mode: 'user_wallet', pay_to_address: newAccount().address },
  })
  expect(api.status).toBe(201)
  const accept = (amount: string) => ({ scheme: 'exact', network: services.chain.network, asset: services.chain.usdc.address, amount, max_timeout_seconds: 300 })
  const schemas = { request_schema: { type: 'object' }, response_schema: { type: 'object' } }
  for (const body of [
    { method: 'GET', path_pattern: '/weather/{city}', accepts: [accept('25000')], ...schemas },
    { method: 'GET', path_pattern: '/files/*', accepts: [accept('10000')], ttl: 600, ...schemas },
  ])
    expect((await t.call(`/apis/${api.body.id}/endpoints`, { ...asSeller, body })).status).toBe(201)
  const wallet = (await t.call('/sandbox-wallet', asSeller)).body as { address: string; private_key: string }

  const { lastFrame, frames, stdin } = render(<App urls={urlsOf()} session={{ jwt }} refreshMs={200} />)
  const frame = () => lastFrame() ?? ''
  const waitForFrame = (check: (text: string) => boolean, timeoutMs = 15_000) => waitFor(() => check(frame()), timeoutMs)

  // The chain, the APIs with their prices and countdown, the wallet with its background funding.
  await waitForFrame((text) => /block #\d/.test(text) && text.includes('/weather/{city}') && text.includes('1,000 USDC'))
  expect(frame()).toContain(`chain 845320402 (eip155:845320402) · block #`)
  expect(frame()).toContain(`Sandbox wallet  ${wallet.address}`)
  expect(frame()).toMatch(/GET {4}\/weather\/\{city\} +0\.025 USDC +no ttl +on/)
  expect(frame()).toMatch(/GET {4}\/files\/\* +0\.01 USDC +ttl (10m00s|9m\d\ds) +on/)
  expect(frame()).toContain('1,000 USDC  ·  10 ETH')

  // A paid request shows up among the settlements.
  const paid = await payingFetch(services, buyer)(`${t.gatewayUrl(slug)}/weather/Paris`)
  expect(paid.status).toBe(200)
  await waitForFrame((text) => text.includes('GET /weather/Paris'))
  expect(frame()).toMatch(new RegExp(`GET /weather/Paris +0\\.025 USDC +from ${buyer.address.slice(0, 6)}…${buyer.address.slice(-4)} +tx 0x[0-9a-f]{4}…[0-9a-f]{4}`))

  // `f`: "funding…", then the result, and the balances follow.
  await waitFor(() => stdin.listenerCount('readable') > 0)
  stdin.write('f')
  await waitForFrame((text) => text.includes('✔ sent 10 ETH and 1,000 USDC') && text.includes('2,000 USDC  ·  20 ETH'))
  expect(frames.some((f) => f.includes(`funding ${wallet.address.slice(0, 6)}…`))).toBe(true)

  for (const f of frames) expect(f).not.toContain(wallet.private_key.slice(6, -4))

  // `q` ends the app: Ink lets go of stdin.
  stdin.write('q')
  await waitFor(() => stdin.listenerCount('readable') === 0)
})
