/**
 * The API's page (server/gateway/api-page/): a browser's GET / on a gateway host gets HTML with the API's name, its
 * endpoints, prices, schemes, schemas, discovery links and try-it forms, everything the seller wrote escaped; every
 * other request (scripts at `/`, browsers elsewhere, a seller's own priced `/`) gets today's answers.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(async () => {
  await t?.stop()
})

/** What Chromium sends when a person opens a URL. */
const browserHeaders = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
}
const curlHeaders = { accept: '*/*', 'user-agent': 'curl/8.5.0' }

const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const sandbox = 'eip155:845320402'
const exact = (amount: string, extra: Record<string, unknown> = {}) => ({
  scheme: 'exact',
  network: sandbox,
  asset: usdc,
  amount,
  extra,
})
let counter = 0

async function api(fields: Record<string, unknown> = {}, environment: 'development' | 'production' = 'development') {
  const { jwt } = await t.signup()
  const slug = `page-${process.pid}-${++counter}`
  const created = await t.call('/apis', {
    environment,
    jwt,
    body: {
      name: 'Weather Co',
      slug,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      ...fields,
    },
  })
  expect(created.status).toBe(201)
  const endpoint = async (body: Record<string, unknown>) => {
    const made = await t.call(`/apis/${created.body.id}/endpoints`, {
      environment,
      jwt,
      body: { accepts: [exact('10000')], response_schema: { type: 'object' }, ...body },
    })
    expect(made.status).toBe(201)
  }
  return { origin: t.gatewayUrl(slug, environment), endpoint }
}

async function page(url: string) {
  const response = await localFetch(url, { headers: browserHeaders })
  return { response, html: await response.text() }
}

describe('a browser at /', () => {
  test('gets the API page: name, endpoints with methods, prices, schemes, transfer methods, schemas, links, try-it', async () => {
    const s = await api({ discovery_guidance: 'Pay per forecast.' })
    await s.endpoint({
      method: 'GET',
      path_pattern: '/weather/{city}',
      description: 'Forecast for a city',
      response_schema: { type: 'object', properties: { temp: { type: 'number' } } },
    })
    await s.endpoint({
      method: 'POST',
      path_pattern: '/report',
      accepts: [{ ...exact('2500000'), scheme: 'upto' }],
      request_schema: { type: 'object', properties: { text: { type: 'string' } } },
    })
    await s.endpoint({
      method: 'GET',
      path_pattern: '/permit',
      accepts: [exact('5', { assetTransferMethod: 'permit2' })],
    })
    await s.endpoint({ method: 'GET', path_pattern: '/files/*' })
    await s.endpoint({ method: 'GET', path_pattern: '/off', enabled: false })
    await s.endpoint({ method: 'GET', path_pattern: '/once', ttl: 600 })

    const { response, html } = await page(`${s.origin}/`)
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(response.headers.get('vary')).toBe('Accept, User-Agent')
    expect(response.headers.get('x-content-type-options')).toBe('nosniff')
    const policy = response.headers.get('content-security-policy')!
    expect(policy).toContain("default-src 'none'")
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'(;|$)/)

    expect(html).toContain('<h1 data-testid="api-name">Weather Co</h1>')
    expect(html).toContain('<p class="environment" data-testid="api-environment">Sandbox</p>')
    expect(html).toContain('Pay per forecast.')
    expect(html).toContain('href="/openapi.json" data-testid="discovery-openapi"')
    expect(html).toContain('href="/.well-known/x402" data-testid="discovery-well-known"')
    // Listed: the enabled endpoints without a ttl, in creation order (the discovery documents' list).
    const listed = [...html.matchAll(/data-testid="endpoint" data-method="(\w+)" data-path="([^"]*)"/g)].map(
      ([, method, path]) => `${method} ${path}`,
    )
    expect(listed).toEqual(['GET /weather/{city}', 'POST /report', 'GET /permit', 'GET /files/*'])
    const prices = [...html.matchAll(/<li data-testid="endpoint-price" data-scheme="\w+">(.*?)<\/li>/g)].map(([, li]) =>
      li!.replace(/<[^>]+>/g, ''),
    )
    expect(prices).toEqual([
      '$0.01 USDC · exact · EIP-3009 · svc Sandbox',
      'up to $2.50 USDC · upto · Permit2 · svc Sandbox',
      '$0.000005 USDC · exact · Permit2 · svc Sandbox',
      '$0.01 USDC · exact · EIP-3009 · svc Sandbox',
    ])
    expect(html).toContain('Forecast for a city')
    expect(html).toContain('&quot;temp&quot;: {')
    expect(html).toContain('data-testid="endpoint-request-schema"')
    // Try-it: one form per endpoint, a field per path parameter, a JSON body for POST, the catch-all optional.
    expect(html.match(/<form class="try-it" data-testid="try-it"/g)).toHaveLength(4)
    expect(html).toContain('data-method="GET" data-template="/weather/{city}" data-catch-all=""')
    expect(html).toContain('data-param="city" data-testid="try-it-param" autocomplete="off" required>')
    expect(html).toContain('data-template="/files/{path}" data-catch-all="path"')
    expect(html.match(/<textarea [^>]*data-testid="try-it-body"/g)).toHaveLength(1)
    // Nothing is loaded from anywhere: no src or external href at all.
    expect(html).not.toMatch(/\ssrc=|href="(?!\/|data:,")/)
  })

  test('everything the seller wrote is escaped: an API named <script>, hostile descriptions and schemas', async () => {
    const name = '<script>alert("name")</script>'
    const s = await api({ name, discovery_guidance: '"><img src=x onerror=alert(1)>' })
    await s.endpoint({
      method: 'GET',
      path_pattern: '/x/{id}',
      description: "</section><script>alert('d')</script>&amp;",
      response_schema: { type: 'object', description: '</script><script>alert(2)</script>', title: "it's" },
    })
    const { html } = await page(`${s.origin}/`)
    expect(html.match(/<script/g)).toHaveLength(1)
    expect(html).not.toContain('<img')
    expect(html).toContain('<h1 data-testid="api-name">&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt;</h1>')
    expect(html).toContain('<title>&lt;script&gt;alert(&quot;name&quot;)&lt;/script&gt; · svc</title>')
    expect(html).toContain('&lt;/section&gt;&lt;script&gt;alert(&#39;d&#39;)&lt;/script&gt;&amp;amp;')
    expect(html).toContain('&lt;/script&gt;&lt;script&gt;alert(2)&lt;/script&gt;')
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;')
  })

  test('a production API: its page, no demo wallet, no faucet', async () => {
    const s = await api({}, 'production')
    await s.endpoint({
      method: 'GET',
      path_pattern: '/live',
      accepts: [{ scheme: 'exact', network: 'eip155:8453', asset: usdc, amount: '100000' }],
    })
    const { response, html } = await page(`${s.origin}/`)
    expect(response.status).toBe(200)
    expect(html).toContain('data-testid="api-environment">Production</p>')
    expect(html).toContain('$0.10')
    expect(html).toContain('eip155:8453')
    expect(html).not.toMatch(/demo|faucet/i)
  })

  test('an API without endpoints says so', async () => {
    const s = await api()
    const { response, html } = await page(`${s.origin}/`)
    expect(response.status).toBe(200)
    expect(html).toContain('data-testid="no-endpoints"')
  })

  test("a seller's own priced GET / (or /*) keeps its route: no page", async () => {
    for (const pattern of ['/', '/*']) {
      const s = await api()
      await s.endpoint({ method: 'GET', path_pattern: pattern })
      const { response, html } = await page(`${s.origin}/`)
      expect(response.status).not.toBe(200)
      expect(html).not.toContain('data-testid="api-name"')
    }
  })
})

describe('everyone else keeps today’s answers', () => {
  test('scripts at / and at every other URL; browsers at other URLs and other methods', async () => {
    const s = await api()
    await s.endpoint({ method: 'GET', path_pattern: '/weather/{city}' })
    const answers = async (path: string, init: RequestInit) => {
      const response = await localFetch(`${s.origin}${path}`, init)
      return { status: response.status, type: response.headers.get('content-type'), body: await response.text() }
    }
    const notFound = {
      status: 404,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({ error: 'no paid route for GET /' }),
    }
    expect(await answers('/', {})).toEqual(notFound)
    expect(await answers('/', { headers: curlHeaders })).toEqual(notFound)
    // A script that asks for HTML without a browser's user agent, or a browser asking for JSON.
    expect(await answers('/', { headers: { ...curlHeaders, accept: 'text/html' } })).toEqual(notFound)
    expect(await answers('/', { headers: { ...browserHeaders, accept: 'application/json' } })).toEqual(notFound)
    expect(await answers('/?x=1', { headers: curlHeaders })).toEqual(notFound)
    // Other methods at / from a browser.
    for (const method of ['HEAD', 'POST', 'DELETE'])
      expect((await answers('/', { method, headers: browserHeaders })).status).toBe(404)
    // The discovery documents stay JSON for browsers too.
    for (const path of ['/openapi.json', '/.well-known/x402'])
      expect((await answers(path, { headers: browserHeaders })).type).toMatch(/^application\/json/)
    // A paid route for a script: the JSON 402 path (here 503: this server has no facilitator), never the page.
    const paid = await answers('/weather/paris', { headers: curlHeaders })
    expect(paid.type).toMatch(/^application\/json/)
    expect(paid.body).not.toContain('api-name')
  })

  test('the try-it hand-off (/__svc/try-it) refuses what is not a request on this host, in JSON', async () => {
    const s = await api()
    const refusals: [string, string][] = [
      ['method=TRACE&resource=/x', 'method must be one of GET, POST, PUT, PATCH, DELETE'],
      ['method=POST&resource=//evil.example/x', 'resource must be a path on this host, such as /echo?x=1'],
      ['method=POST&resource=http://evil.example/x', 'resource must be a path on this host, such as /echo?x=1'],
      ['method=POST&resource=/__svc/try-it', 'resource must be a path on this host, such as /echo?x=1'],
      ['method=POST&resource=/x&body={oops', 'body must be JSON'],
      [`method=POST&resource=/${'a'.repeat(2100)}`, 'resource is longer than 2048 characters'],
    ]
    for (const [query, error] of refusals) {
      const response = await localFetch(`${s.origin}/__svc/try-it?${query}`, { headers: browserHeaders })
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({ error })
    }
    // A route that does not exist: the flow's own 404.
    const missing = await localFetch(`${s.origin}/__svc/try-it?method=POST&resource=/nothing`, {
      headers: browserHeaders,
    })
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: 'no paid route for POST /nothing' })
  })

  test('a host that serves no API: the JSON 404, for browsers too', async () => {
    const response = await localFetch(t.gatewayUrl(`nothing-${process.pid}`), { headers: browserHeaders })
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  })
})
