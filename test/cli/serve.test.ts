/**
 * `svc serve` with its Sandbox chain, as a real child process on real HTTP: health and readiness, a paid request to
 * `{slug}.dev.pay.test` (the Host header, not *.localhost) with the official x402 client, the trusted proxy (a
 * loopback source address of its own, 127.0.0.2) honoured by the scheme and the auth throttles while anyone else's
 * X-Forwarded-For is ignored, the admin routes, the upstream guard, and the drain on SIGTERM with a payment in flight.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-'))
const adminToken = randomBytes(32).toString('hex')
writeFileSync(join(dir, 'admin.token'), adminToken)
/** Anyone: a client straight on the socket. */
const direct = fetchFrom('127.0.0.1')
/** The load balancer svc serve trusts (--trust-proxy 127.0.0.2). */
const proxy = fetchFrom('127.0.0.2')

/** The upstream, on 127.0.0.3 (--allow-upstream): records what it was sent; /slow answers when released. */
const seen: IncomingHttpHeaders[] = []
let releaseSlow = () => {}
let slowArrived = () => {}
const slowArrival = new Promise<void>((resolve) => (slowArrived = resolve))
const upstream: Server = createServer((req, res) => {
  seen.push(req.headers)
  const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url }))
  if (req.url !== '/slow') return answer()
  releaseSlow = () => {
    releaseSlow = () => {}
    answer()
  }
  slowArrived()
})

let svc: ServeProcess
let upstreamUrl: string
let jwt: string
let gateway: (slug: string) => string
const buyer = privateKeyToAccount(generatePrivateKey())

const json = (body: unknown) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
})
const asSeller = (body?: unknown) => ({
  method: body === undefined ? 'GET' : 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}`, 'x-svc-environment': 'development' },
  ...(body === undefined ? {} : { body: JSON.stringify(body) }),
})

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
  svc = await startServeProcess([
    ...['--data-dir', join(dir, 'data'), '--host', '127.0.0.1', '--platform-domain', 'pay.test'],
    ...[
      '--trust-proxy',
      '127.0.0.2',
      '--allow-upstream',
      '127.0.0.3/32',
      '--admin-token-file',
      join(dir, 'admin.token'),
    ],
    '--auto-verify',
  ])
  gateway = (slug) => `http://${slug}.${svc.ready.sandbox_platform_domain}:${svc.ready.port}`
  const signup = await direct(
    `${svc.ready.sandbox_control_url}/auth/signup`,
    json({ email: 'seller@pay.test', password: 'a-long-password' }),
  )
  jwt = ((await signup.json()) as { token: string }).token
  await fetch(`${svc.ready.chain_manager_url}/faucet`, json({ address: buyer.address }))
}, 60_000)
afterAll(async () => {
  releaseSlow()
  await svc?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Creates a Sandbox API in front of `upstream_base_url`: the answer of POST /apis. */
async function createApi(slug: string, upstreamBaseUrl: string) {
  const response = await direct(
    `${svc.ready.sandbox_control_url}/apis`,
    asSeller({
      name: slug,
      slug,
      upstream_base_url: upstreamBaseUrl,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    }),
  )
  return { status: response.status, body: (await response.json()) as { id: string; error?: string } }
}

async function addEndpoint(apiId: string, path: string) {
  const accept = {
    scheme: 'exact',
    network: svc.ready.network,
    asset: svc.ready.usdc,
    amount: '10000',
    max_timeout_seconds: 300,
  }
  const response = await direct(
    `${svc.ready.sandbox_control_url}/apis/${apiId}/endpoints`,
    asSeller({
      method: 'GET',
      path_pattern: path,
      accepts: [accept],
      request_schema: null,
      response_schema: { type: 'object' },
    }),
  )
  expect(response.status).toBe(201)
}

const paying = (via: typeof fetch) => {
  const client = new x402Client().register(svc.ready.network, new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: svc.ready.network, asset: svc.ready.usdc, maxAmountPerPayment: '1000000' }],
  })
  return wrapFetchWithPayment(via, client)
}

describe('svc serve', () => {
  test('/healthz is live and /readyz ready (database and chain) on a bare IP and the control hosts, not on gateway hosts', async () => {
    const ip = `http://127.0.0.1:${svc.ready.port}`
    expect(await (await direct(`${ip}/healthz`)).json()).toEqual({ status: 'live' })
    const ready = await direct(`${ip}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ status: 'ready', database: 'ok', chain: 'ok' })
    expect((await direct(`${svc.ready.control_url}/readyz`)).status).toBe(200)
    expect(svc.ready.control_url).toBe(`http://api.pay.test:${svc.ready.port}`)
    // On a gateway host /healthz is whatever the seller's API says (here: no such API).
    expect((await direct(`${gateway('nobody')}/healthz`)).status).toBe(404)
  })

  test('a paid request through {slug}.dev.pay.test; the trusted proxy says the buyer came over https', async () => {
    const api = await createApi('weather', upstreamUrl)
    expect(api.status).toBe(201)
    await addEndpoint(api.body.id, '/forecast')
    await addEndpoint(api.body.id, '/slow')
    const url = `${gateway('weather')}/forecast`
    // Anyone's X-Forwarded-Proto is ignored: the 402 names the resource as it was reached.
    const spoofed = await direct(url, { headers: { 'x-forwarded-proto': 'https' } })
    expect(spoofed.status).toBe(402)
    expect(decodePaymentRequiredHeader(spoofed.headers.get('payment-required')!).resource.url).toBe(url)
    const proxied = await proxy(url, { headers: { 'x-forwarded-proto': 'https' } })
    expect(decodePaymentRequiredHeader(proxied.headers.get('payment-required')!).resource.url).toBe(
      url.replace('http:', 'https:'),
    )
    // Again, once each 402 is known (answered before express, issue 40): the same URLs.
    const again = async (via: typeof fetch) =>
      decodePaymentRequiredHeader(
        (await via(url, { headers: { 'x-forwarded-proto': 'https' } })).headers.get('payment-required')!,
      ).resource.url
    expect([await again(proxy), await again(direct)]).toEqual([url.replace('http:', 'https:'), url])
    // So does the discovery document's server URL: the proxy's X-Forwarded-Proto, anyone else's ignored.
    const servers = async (via: typeof fetch) =>
      (
        (await (
          await via(`${gateway('weather')}/openapi.json`, { headers: { 'x-forwarded-proto': 'https' } })
        ).json()) as any
      ).servers
    expect(await servers(proxy)).toEqual([{ url: gateway('weather').replace('http:', 'https:') }])
    expect(await servers(direct)).toEqual([{ url: gateway('weather') }])

    const paid = await paying(proxy)(url, {
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '198.51.100.9' },
    })
    expect(paid.status).toBe(200)
    expect(await paid.json()).toEqual({ ok: '/forecast' })
    expect(decodePaymentResponseHeader(paid.headers.get('payment-response')!).success).toBe(true)
    const headers = seen.at(-1)!
    expect(headers['x-forwarded-proto']).toBe('https')
    expect(headers['x-forwarded-host']).toBe(`weather.dev.pay.test:${svc.ready.port}`)
    expect(headers['x-forwarded-for']).toBe('198.51.100.9, 127.0.0.2')
  })

  test("no direct URL on a server: a bare IP's /gateway/{host}/… stays the control plane's 404; direct_url is null", async () => {
    const api = await createApi('nodns', upstreamUrl)
    expect(api.status).toBe(201)
    expect((api.body as { direct_url?: unknown }).direct_url).toBeNull()
    await addEndpoint(api.body.id, '/forecast')
    expect((await direct(`${gateway('nodns')}/forecast`)).status).toBe(402)
    const answer = await direct(`http://127.0.0.1:${svc.ready.port}/gateway/nodns.dev.pay.test/forecast`)
    expect(answer.status).toBe(404)
    expect(answer.headers.get('payment-required')).toBeNull()
  })

  test('/config/local-dev names only URLs that answer through the public listener: RPC, faucet, balances, bazaar catalog', async () => {
    const config = (await (await direct(`${svc.ready.sandbox_control_url}/config/local-dev`)).json()) as Record<
      string,
      unknown
    > & { rpc_url: string; chain_manager_url: string; bazaar_url: string }
    const sandbox = new URL(svc.ready.sandbox_control_url)
    // A buyer on another host reaches svc at its public address only: its Anvil, chain manager and facilitator
    // listen on this machine's loopback.
    const urls = JSON.stringify(config).match(/https?:\/\/[^"]+/g)!
    expect(urls.length).toBeGreaterThanOrEqual(3)
    for (const url of urls) expect(new URL(url).origin).toBe(sandbox.origin)
    expect(config).toMatchObject({ facilitator_url: null, twins: [] })

    const chainId = await direct(config.rpc_url, json({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }))
    expect(((await chainId.json()) as { result: string }).result).toBe('0x326290d2')
    const wallet = privateKeyToAccount(generatePrivateKey())
    const funded = await direct(`${config.chain_manager_url}/faucet`, asSeller({ address: wallet.address }))
    expect(funded.status).toBe(200)
    const balances = await direct(`${config.chain_manager_url}/balances`, asSeller({ address: wallet.address }))
    expect(BigInt(((await balances.json()) as { usdc_base: string }).usdc_base)).toBeGreaterThan(0n)
    const catalog = await direct(`${config.bazaar_url}/discovery/resources`)
    expect(catalog.status).toBe(200)
    expect(await catalog.json()).toMatchObject({ x402Version: 2, items: [{ type: 'http' }] })
    // The admin's chain restart names the same public RPC, not the loopback Anvil.
    const restarted = await direct(`${svc.ready.sandbox_control_url}/dev/chain/restart`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}` },
    })
    expect(await restarted.json()).toMatchObject({ restarted: true, rpc_url: config.rpc_url })
  })

  test('the upstream guard refuses non-public ranges, link-local, loopback not allowed, and svc itself', async () => {
    for (const target of [
      'http://10.1.2.3/',
      'http://169.254.169.254/latest/meta-data/',
      'http://192.168.1.1:8080/',
      'http://[::1]:9/',
      'http://[fe80::1]/',
      'http://127.0.0.4:9/',
      `http://127.0.0.1:${svc.ready.port}/`,
      `http://127.0.0.3:${svc.ready.port}/`,
      svc.ready.rpc_url,
    ]) {
      const refused = await createApi(`guard-${randomBytes(3).toString('hex')}`, target)
      expect(refused.status, target).toBe(400)
      expect(refused.body.error, target).toMatch(/^upstream_base_url: targets (a non-public address|svc's)/)
    }
    expect((await createApi('guard-public', 'http://203.0.113.10/')).status).toBe(201)
  })

  test('admin routes (time, snapshots, faults, outbox) take the admin token, not the caller being on this machine', async () => {
    const time = `${svc.ready.sandbox_control_url}/dev/time`
    const none = await direct(time)
    expect(none.status).toBe(401)
    expect(await none.json()).toEqual({ error: 'unauthorized' })
    const wrong = await direct(time, { headers: { authorization: `Bearer ${randomBytes(32).toString('hex')}` } })
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ error: 'invalid token' })
    // Through the trusted proxy nothing changes: the token decides.
    expect((await proxy(time)).status).toBe(401)
    const admin = { authorization: `Bearer ${adminToken}` }
    expect((await direct(time, { headers: admin })).status).toBe(200)
    expect((await direct(`${svc.ready.sandbox_control_url}/dev/faults`, { headers: admin })).status).toBe(200)
    expect(
      (await direct(`${svc.ready.sandbox_control_url}/dev/snapshots`, { method: 'POST', headers: admin })).status,
    ).toBe(201)
    expect((await direct(`${svc.ready.control_url}/dev/outbox`)).status).toBe(401)
    expect((await direct(`${svc.ready.control_url}/dev/outbox`, { headers: admin })).status).toBe(200)
    // The Sandbox-only rule stands with the token.
    expect((await direct(`${svc.ready.control_url}/dev/time`, { headers: admin })).status).toBe(403)
  })

  test("the auth throttles key on the address the trusted proxy reports, and on the socket's peer for anyone else", async () => {
    const login = (via: typeof fetch, forwardedFor?: string) =>
      via(`${svc.ready.control_url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
        body: JSON.stringify({
          email: `nobody-${randomBytes(4).toString('hex')}@pay.test`,
          password: 'wrong-password',
        }),
      }).then((response) => response.status)
    // 30 failures per address a minute: anyone's spoofed X-Forwarded-For changes nothing, it is 127.0.0.1 each time.
    for (let i = 0; i < 30; i++) expect(await login(direct, `203.0.113.${i}`)).toBe(401)
    expect(await login(direct, '203.0.113.200')).toBe(429)
    // The proxy's clients are told apart by what it reports.
    for (let i = 0; i < 30; i++) expect(await login(proxy, '198.51.100.7')).toBe(401)
    expect(await login(proxy, '198.51.100.7')).toBe(429)
    expect(await login(proxy, '198.51.100.8')).toBe(401)
  })

  test('--sandbox-chain none: a production API at {slug}.shop.test paid through an external facilitator (--facilitator-url)', async () => {
    // Another svc serve, production only: its facilitator is the first one's (any x402 facilitator would do).
    // Its RPC of the network sits on an allowed address (127.0.0.3): still svc's own peer, no upstream may target it.
    const rpcUrl = `http://127.0.0.3:${svc.ready.port}/rpc`
    const shop = await startServeProcess([
      ...['--sandbox-chain', 'none', '--data-dir', join(dir, 'shop'), '--platform-domain', 'shop.test'],
      ...['--facilitator-url', svc.ready.facilitator_url, '--allow-upstream', '127.0.0.3', '--auto-verify'],
      ...['--rpc', `${svc.ready.network}=${rpcUrl}`],
    ])
    try {
      expect(await (await direct(`http://127.0.0.1:${shop.ready.port}/readyz`)).json()).toEqual({
        status: 'ready',
        database: 'ok',
        chain: 'none',
      })
      const control = shop.ready.control_url
      const signup = await direct(
        `${control}/auth/signup`,
        json({ email: 'shop@shop.test', password: 'a-long-password' }),
      )
      const auth = {
        'content-type': 'application/json',
        authorization: `Bearer ${((await signup.json()) as { token: string }).token}`,
      }
      const api = await direct(`${control}/apis`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          name: 'Shop',
          slug: 'shop',
          upstream_base_url: upstreamUrl,
          pay_to_mode: 'user_wallet',
          pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        }),
      })
      expect(api.status).toBe(201)
      const { id, gateway_url } = (await api.json()) as { id: string; gateway_url: string }
      expect(gateway_url).toBe(`http://shop.shop.test:${shop.ready.port}`)
      const onRpc = await direct(`${control}/apis`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          name: 'On the RPC',
          slug: 'on-rpc',
          upstream_base_url: new URL(rpcUrl).origin,
          pay_to_mode: 'user_wallet',
          pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        }),
      })
      expect(onRpc.status).toBe(400)
      expect(await onRpc.json()).toEqual({
        error: `upstream_base_url: targets svc's RPC of ${svc.ready.network}; an upstream must be a service of your own`,
      })
      const accept = {
        scheme: 'exact',
        network: svc.ready.network,
        asset: svc.ready.usdc,
        amount: '10000',
        max_timeout_seconds: 300,
        // A production accept names the token's EIP-712 domain itself (the Sandbox fills it in for its own USDC).
        extra: { name: 'USDC', version: '2' },
      }
      const endpoint = await direct(`${control}/apis/${id}/endpoints`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({
          method: 'GET',
          path_pattern: '/forecast',
          accepts: [accept],
          request_schema: null,
          response_schema: { type: 'object' },
        }),
      })
      expect(endpoint.status).toBe(201)
      const paid = await paying(direct)(`${gateway_url}/forecast`)
      expect(paid.status).toBe(200)
      expect(await paid.json()).toEqual({ ok: '/forecast' })
      expect(decodePaymentResponseHeader(paid.headers.get('payment-response')!).success).toBe(true)
    } finally {
      expect(await shop.stop()).toBe(0)
    }
  })

  test('SIGTERM drains: new connections are refused, the payment in flight completes and settles, exit 0', async () => {
    // A live event stream is open too: it has no end, and the drain does not wait for it (the test's 30 s would).
    const stream = await direct(`${svc.ready.sandbox_control_url}/events`, {
      headers: { authorization: `Bearer ${jwt}`, 'x-svc-environment': 'development', accept: 'text/event-stream' },
    })
    expect(stream.status).toBe(200)
    const pay = paying(proxy)
    const inFlight = pay(`${gateway('weather')}/slow`)
    await slowArrival
    svc.child.kill('SIGTERM')
    // The listener is closed: a new connection is refused.
    await expect
      .poll(
        () =>
          new Promise((resolve) => {
            const socket = connect(svc.ready.port, '127.0.0.1')
            socket.once('connect', () => resolve(socket.destroy() && 'connected'))
            socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code))
          }),
      )
      .toBe('ECONNREFUSED')
    expect(svc.child.exitCode).toBeNull()
    releaseSlow()
    const answer = await inFlight
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ ok: '/slow' })
    expect(decodePaymentResponseHeader(answer.headers.get('payment-response')!).success).toBe(true)
    expect(await svc.exited).toBe(0)
    expect(svc.stderr()).toContain('svc: SIGTERM: draining')
    expect(svc.stderr()).not.toContain('drain timed out')
    await stream.body?.cancel().catch(() => {})
  })
})
