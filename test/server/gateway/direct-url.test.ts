/**
 * The direct URLs (server/app.ts), on a real `svc up` (a child process, port 0, the demo seed plus an
 * API in front of an upstream of the test's): `http://127.0.0.1:PORT/gateway/{gateway host}/{path}` is the gateway
 * host's `/{path}` with no name to resolve. Plain `fetch` (Node's resolver knows no `*.localhost` name) pays through
 * it with the official x402 client; the 402's resource URL, the paywall page, the API page and the discovery documents
 * name it; the upstream gets the gateway's path; the control plane and the gateway hosts are as they were.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { startSvcProcess, type SvcProcess } from '../../helpers/svc-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-direct-'))
/** What the test's upstream was sent: its path and headers. */
const seen: { url: string; headers: IncomingHttpHeaders }[] = []
const upstream = createServer((req, res) => {
  seen.push({ url: req.url!, headers: req.headers })
  const origin = `http://127.0.0.1:${port(upstream)}`
  if (req.url === '/moved') return void res.writeHead(302, { location: '/landing' }).end()
  if (req.url === '/away') return void res.writeHead(302, { location: `${origin}/landing?from=away` }).end()
  if (req.url === '/elsewhere') return void res.writeHead(302, { location: 'https://example.com/x' }).end()
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url }))
})
const port = (server: typeof upstream) => (server.address() as { port: number }).port

let svc: SvcProcess
/** http://127.0.0.1:PORT */
let ip: string
const buyer = privateKeyToAccount(generatePrivateKey())
let pay: typeof fetch
let payLocal: typeof fetch

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  const seed = join(dir, 'seed.yaml')
  writeFileSync(
    seed,
    `account:
  email: direct@svc.test
  password: direct-password-402
apis:
  - name: Demo Weather
    slug: weather
    upstream_base_url: "{{demo_upstream}}"
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    endpoints:
      - method: GET
        path_pattern: /weather/{city}
        price: "0.01"
  - name: Echo
    slug: echo
    upstream_base_url: "http://127.0.0.1:${port(upstream)}"
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    endpoints:
      - method: GET
        path_pattern: /*
        price: "0.001"
`,
  )
  svc = await startSvcProcess(['--seed', seed])
  ip = `http://127.0.0.1:${svc.ready.gateway_port}`
  const { network, usdc, chain_manager_url } = svc.ready
  await fetch(`${chain_manager_url}/faucet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ address: buyer.address }),
  })
  const client = new x402Client().register(network, new ExactEvmScheme(buyer))
  client.setSpendControls({ allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: '1000000' }] })
  pay = wrapFetchWithPayment(fetch, client)
  payLocal = wrapFetchWithPayment(localFetch, client)
}, 120_000)
afterAll(async () => {
  await svc?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

const browser = { accept: 'text/html,application/xhtml+xml', 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64)' }

describe('the direct URL of a gateway', () => {
  test('the ready line and the seed give it: http://127.0.0.1:PORT/gateway/{gateway host}', () => {
    expect(svc.ready.direct_gateway_base).toBe(`${ip}/gateway`)
    expect(svc.ready.seed.apis).toEqual([
      expect.objectContaining({
        slug: 'weather',
        gateway_url: `http://weather.dev.localhost:${svc.ready.gateway_port}`,
        direct_url: `${ip}/gateway/weather.dev.localhost`,
      }),
      expect.objectContaining({ slug: 'echo', direct_url: `${ip}/gateway/echo.dev.localhost` }),
    ])
  })

  test('a buyer pays an exact endpoint through it with @x402/fetch and plain fetch; the 402 names the direct URL', async () => {
    const url = `${svc.ready.seed.apis[0].direct_url}/weather/lisbon`
    const unpaid = await fetch(url)
    expect(unpaid.status).toBe(402)
    const required = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!)
    expect(required.resource?.url).toBe(url)
    expect(((await unpaid.json()) as { resource: { url: string } }).resource.url).toBe(url)

    const paid = await pay(url)
    expect(paid.status).toBe(200)
    expect(await paid.json()).toMatchObject({ city: 'lisbon', source: 'svc demo upstream' })
    const settled = decodePaymentResponseHeader(paid.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, payer: buyer.address })
  })

  test('the paywall page, the API page and the discovery documents name the direct URL', async () => {
    const base = '/gateway/weather.dev.localhost'
    const page = await fetch(`${ip}${base}/weather/paris?units=metric`, { headers: browser })
    expect(page.status).toBe(402)
    const html = await page.text()
    expect(html).toContain(`<script src="${base}/__svc/paywall.js"`)
    const state = JSON.parse(/<script type="application\/json" id="svc-paywall-state">(.*?)<\/script>/s.exec(html)![1]!)
    expect(state).toMatchObject({
      resource: `${base}/weather/paris?units=metric`,
      base,
      faucet: `${ip}${base}/__svc/faucet`,
      chain: { rpcUrl: `${ip}${base}/__svc/rpc` },
    })
    const script = await fetch(`${ip}${base}/__svc/paywall.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toContain('text/javascript')
    const rpc = await fetch(`${ip}${base}/__svc/rpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    })
    expect(await rpc.json()).toMatchObject({ result: `0x${Number(svc.ready.chain_id).toString(16)}` })

    const apiPage = await (await fetch(`${ip}${base}/`, { headers: browser })).text()
    expect(apiPage).toContain(`data-base="${base}"`)
    expect(apiPage).toContain(`href="${base}/openapi.json"`)
    expect(apiPage).toContain(`href="${base}/.well-known/x402"`)
    // The try-it hand-off of a POST: its paywall pays the direct URL's path.
    const tryIt = await fetch(`${ip}${base}/__svc/try-it?method=GET&resource=/weather/oslo`, { headers: browser })
    expect(await tryIt.text()).toContain(`"resource":"${base}/weather/oslo"`)

    const wellKnown = (await (await fetch(`${ip}${base}/.well-known/x402`)).json()) as { resources: string[] }
    expect(wellKnown.resources).toEqual([`${ip}${base}/weather/{city}`])
    const openapi = (await (await fetch(`${ip}${base}/openapi.json`)).json()) as { servers: { url: string }[] }
    expect(openapi.servers).toEqual([{ url: `${ip}${base}` }])
  })

  test("the upstream gets the gateway's path and X-Forwarded-Prefix; the redirects svc maps stay on the direct URL", async () => {
    const base = `${ip}/gateway/echo.dev.localhost`
    seen.length = 0
    const answer = await pay(`${base}/hello?x=1`)
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ path: '/hello?x=1' })
    const sent = seen.find((request) => request.url === '/hello?x=1')!
    expect(sent.headers['x-forwarded-prefix']).toBe('/gateway/echo.dev.localhost')
    expect(sent.headers['x-forwarded-host']).toBe(`127.0.0.1:${svc.ready.gateway_port}`)
    expect(sent.headers['payment-signature']).toBeUndefined()

    // A path from the root (the upstream's, or the one svc makes of the upstream's own origin) gets the prefix.
    const moved = await pay(`${base}/moved`, { redirect: 'manual' })
    expect(moved.headers.get('location')).toBe('/gateway/echo.dev.localhost/landing')
    const away = await pay(`${base}/away`, { redirect: 'manual' })
    expect(away.headers.get('location')).toBe('/gateway/echo.dev.localhost/landing?from=away')
    const elsewhere = await pay(`${base}/elsewhere`, { redirect: 'manual' })
    expect(elsewhere.headers.get('location')).toBe('https://example.com/x')
  })

  test("on a gateway host /gateway/… is the API's own path, sent to the upstream unchanged", async () => {
    const gateway = `http://echo.dev.localhost:${svc.ready.gateway_port}`
    seen.length = 0
    const answer = await payLocal(`${gateway}/gateway/echo.dev.localhost/hello`)
    expect(answer.status).toBe(200)
    expect(await answer.json()).toEqual({ path: '/gateway/echo.dev.localhost/hello' })
    expect(seen.at(-1)!.headers['x-forwarded-prefix']).toBeUndefined()
    const unpaid = await localFetch(`${gateway}/anything`)
    expect(decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!).resource?.url).toBe(
      `${gateway}/anything`,
    )
  })

  test('the control plane keeps its hosts; a direct URL names gateway hosts only', async () => {
    // On a control host /gateway/… is the control plane's (which has no such route).
    const onControl = await localFetch(
      `http://api.localhost:${svc.ready.gateway_port}/gateway/weather.dev.localhost/weather/x`,
    )
    expect(onControl.status).toBe(404)
    expect(onControl.headers.get('payment-required')).toBeNull()
    const onLocalhost = await localFetch(
      `http://localhost:${svc.ready.gateway_port}/gateway/weather.dev.localhost/weather/x`,
    )
    expect(onLocalhost.status).toBe(404)
    expect(onLocalhost.headers.get('payment-required')).toBeNull()
    // The bare IP is still the control plane everywhere else.
    expect((await fetch(`${ip}/healthz`)).status).toBe(200)
    expect((await fetch(`${ip}/config/platform`)).status).toBe(200)

    const cases: [string, string][] = [
      ['/gateway/', 'no gateway host in /gateway/: a direct URL is /gateway/{gateway host}/{path}'],
      ['/gateway/api.localhost/apis', 'api.localhost is no gateway host'],
      ['/gateway/sandbox.localhost/sandbox-wallet', 'sandbox.localhost is no gateway host'],
      ['/gateway/127.0.0.1/apis', '127.0.0.1 is no gateway host'],
      ['/gateway/nope.dev.localhost/x', 'no API is served at nope.dev.localhost'],
      // The other environment's host of the slug, by its direct URL too.
      [
        '/gateway/weather.localhost/weather/x',
        `no API is served at weather.localhost; did you mean ${ip}/gateway/weather.dev.localhost/?`,
      ],
      // A custom hostname only once verified.
      ['/gateway/shop.example.com/x', 'no API is served at shop.example.com'],
    ]
    for (const [path, error] of cases) {
      const answer = await fetch(`${ip}${path}`)
      expect(answer.status, path).toBe(404)
      expect(((await answer.json()) as { error: string }).error, path).toContain(error)
    }
  })

  test('the API record gives direct_url beside gateway_url', async () => {
    const apis = await fetch(`${ip}/apis`, {
      headers: { authorization: `Bearer ${svc.ready.seed.jwt}`, 'x-svc-environment': 'development' },
    })
    const { apis: list } = (await apis.json()) as { apis: { slug: string; direct_url: string }[] }
    expect(list.map((api) => [api.slug, api.direct_url]).sort()).toEqual([
      ['echo', `${ip}/gateway/echo.dev.localhost`],
      ['weather', `${ip}/gateway/weather.dev.localhost`],
    ])
  })
})
