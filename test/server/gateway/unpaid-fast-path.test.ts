/**
 * Issue 40: an unpaid request whose 402 the gateway knows is answered before express (server/app.ts, the gateway's
 * `unpaid`). Nothing a buyer sees may change: for each scheme and extension the fast 402 is byte for byte the one
 * express's way wrote (headers but Date, and body), and it is counted and told as that one was.
 */
import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PaymentEvent } from '../../../server/payment-events.js'
import { batchAccept } from './batch-kit.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  type Permit2GatewayStack,
  sandboxAccept,
  startGatewayStack,
} from './helpers.js'

let stack: Permit2GatewayStack
/** Requests express's way took (the gateway's `handle`), counted by the test. */
let handled = 0

beforeAll(async () => {
  stack = await startGatewayStack({ permit2: true })
  const gateway = stack.t.server.app.gateway
  const handle = gateway.handle.bind(gateway)
  gateway.handle = (req, res, route) => {
    handled++
    return handle(req, res, route)
  }
}, 120_000)
afterAll(() => stack?.stop())

/** One raw HTTP/1.1 exchange: the status line and headers (Date left out) as sent, and the body's bytes. */
async function raw(url: string, request: { method?: string; headers?: Record<string, string> } = {}) {
  const { host, port, origin } = new URL(url)
  // The request target as written (a fragment too: a URL's hash is no part of what fetch sends).
  const lines = [
    `${request.method ?? 'GET'} ${url.slice(origin.length)} HTTP/1.1`,
    `Host: ${host}`,
    ...Object.entries(request.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ]
  const socket = connect(Number(port), '127.0.0.1')
  socket.end(`${lines.join('\r\n')}\r\n\r\n`)
  const chunks: Buffer[] = []
  for await (const chunk of socket) chunks.push(chunk as Buffer)
  const all = Buffer.concat(chunks)
  const end = all.indexOf('\r\n\r\n')
  const head = all
    .subarray(0, end)
    .toString('latin1')
    .split('\r\n')
    .filter((line) => !/^date:/i.test(line))
  return { head, body: all.subarray(end + 4) }
}

/** The first 402 of `url` (express's way, the 402 not known yet), then the same request again (known). */
async function twice(url: string, request?: Parameters<typeof raw>[1]) {
  const before = handled
  const first = await raw(url, request)
  const tookExpress = handled - before
  const second = await raw(url, request)
  return { first, second, tookExpress, secondTookExpress: handled - before - tookExpress }
}

describe('the unpaid 402 answered before express', () => {
  test('is byte for byte express’s 402 for every scheme and extension, and goes around express once known', async () => {
    const { t, services, upstream, permit2 } = stack
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const endpoints = [
      // exact (EIP-3009), with the Bazaar's schemas, a description and payment-identifier required
      {
        method: 'GET',
        path_pattern: '/exact/{city}',
        accepts: [sandboxAccept(services)],
        description: 'A forecast',
        payment_identifier_required: true,
        response_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
      // exact through Permit2 (both gas sponsoring extensions) beside EIP-3009, and one sponsoring named
      { method: 'GET', path_pattern: '/permit2', accepts: [permit2.permit2Accept('20000'), sandboxAccept(services)] },
      { method: 'GET', path_pattern: '/sponsored', accepts: [permit2.sponsoredAccept('20000')] },
      { method: 'GET', path_pattern: '/upto', accepts: [permit2.uptoAccept('50000')] },
      { method: 'GET', path_pattern: '/channel', accepts: [batchAccept(services, 1000n)] },
      // a body's schema and example (the Bazaar's input)
      {
        method: 'POST',
        path_pattern: '/post',
        accepts: [sandboxAccept(services)],
        request_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
      },
    ]
    for (const endpoint of endpoints) await addEndpoint(t, seller, api.id, endpoint)
    const cases: [string, Parameters<typeof raw>[1]][] = [
      ['/exact/paris', {}],
      ['/exact/paris?units=metric&x=%20y', {}],
      ['/permit2', { headers: { accept: 'application/json', 'user-agent': 'curl/8' } }],
      ['/sponsored', {}],
      ['/upto', {}],
      ['/channel', {}],
      ['/post', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '0' } }],
    ]
    for (const [path, request] of cases) {
      const { first, second, tookExpress, secondTookExpress } = await twice(`${api.gateway}${path}`, request)
      expect(first.head[0], path).toBe('HTTP/1.1 402 Payment Required')
      expect(second.head, path).toEqual(first.head)
      expect(second.body.equals(first.body), path).toBe(true)
      expect([tookExpress, secondTookExpress], path).toEqual([1, 0])
    }
    // A buyer's X-Forwarded-Proto is nobody's word here (no trusted proxy): the same 402 as without it.
    const spoofed = await raw(`${api.gateway}/exact/paris`, { headers: { 'x-forwarded-proto': 'https' } })
    expect(spoofed.body.equals((await raw(`${api.gateway}/exact/paris`)).body)).toBe(true)
  })

  test('a browser, a payment, X-PAYMENT, the API page and the discovery documents still take express’s way', async () => {
    const { apiWith, services } = stack
    const { api } = await apiWith('/weather/{city}', [sandboxAccept(services)])
    const url = `${api.gateway}/weather/paris`
    await raw(url)
    const before = handled
    const browser = await raw(url, { headers: { accept: 'text/html', 'user-agent': 'Mozilla/5.0' } })
    expect(browser.head).toContain('content-type: text/html; charset=utf-8')
    const paying = await raw(url, { headers: { 'payment-signature': 'bm90IGEgcGF5bWVudA==' } })
    expect(paying.head[0]).toBe('HTTP/1.1 402 Payment Required')
    const v1 = await raw(url, { headers: { 'x-payment': 'e30=' } })
    expect(JSON.parse(v1.body.toString()).error).toMatch(/^svc speaks x402 v2 only/)
    for (const path of ['/', '/openapi.json', '/.well-known/x402', '/__svc/paywall.js', '/weather/paris#x'])
      await raw(`${api.gateway}${path}`)
    expect(handled - before).toBe(8)
    // A route none matches is express's 404, known or not.
    for (let i = 0; i < 2; i++) expect((await raw(`${api.gateway}/nope`)).head[0]).toBe('HTTP/1.1 404 Not Found')
    expect(handled - before).toBe(10)
  })

  test('counts and tells a 402 answered before express as it did one answered by express', async () => {
    const { apiWith, services, t } = stack
    const { seller, api } = await apiWith('/weather/{city}', [sandboxAccept(services)])
    const events: PaymentEvent[] = []
    const stop = t.server.events.subscribe(seller.userId, (event) => events.push(event))
    try {
      const before = handled
      for (let i = 0; i < 5; i++) await raw(`${api.gateway}/weather/paris`)
      expect(handled - before).toBe(1)
      const stats = () =>
        t.server.database.db.selectFrom('api_daily_stats').selectAll().where('api_id', '=', api.id).executeTakeFirst()
      await expect.poll(async () => (await stats())?.requests, { timeout: 10_000 }).toBe(5)
      expect(await stats()).toMatchObject({ requests: 5, payment_required: 5, paid_requests: 0 })
      expect(events.map((event) => `${event.type} ${event.method} ${event.path} ${event.status}`)).toEqual(
        Array(5).fill('payment.required GET /weather/paris 402'),
      )
    } finally {
      stop()
    }
  })
})
