import { createServer, type AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import { createUpstreamProxy } from '../../../server/upstream/proxy.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import {
  addEndpoint,
  createApi,
  errorOf,
  newSeller,
  payingFetch,
  sandboxAccept,
  signedPaymentFor,
  type startUpstream,
  usdcBalance,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let stack: GatewayStack | undefined
let buyer: LocalAccount

beforeAll(async () => {
  // An upstream deadline small enough for a test (30 s in svc).
  ;({ services, t, upstream, buyer } = stack = await startGatewayStack({ paidRoutes: { timeoutMs: 1_000 } }))
})
afterAll(async () => {
  await stack?.stop()
})

const settlementsOf = (apiId: string) =>
  t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()

/** The same value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .reverse()
      .map(([key, inner]) => [key, reversedKeys(inner)]),
  )
}

const base64 = (json: string) => Buffer.from(json).toString('base64')

describe('one payment, however it is encoded', () => {
  test('re-encodings of one signed payment sent at once: one upstream call, one charge, the others refused', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/delay/{ms}',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/delay/500`
    const signature = await signedPaymentFor(services, buyer, url)
    const payment = JSON.parse(Buffer.from(signature, 'base64').toString('utf8')) as Record<string, any>
    const encodings = [
      signature,
      base64(JSON.stringify({ ...payment, extra: 'an extra key' })),
      base64(JSON.stringify(payment, null, 2)),
      base64(` ${JSON.stringify(payment, null, '\t')}\n`),
      base64(JSON.stringify(reversedKeys(payment))),
      base64(JSON.stringify({ ...payment, payload: { ...payment.payload, note: 'inside the scheme payload' } })),
    ]
    expect(new Set(encodings).size).toBe(encodings.length)
    const before = await usdcBalance(services, buyer.address)
    const calls = upstream.calls.length

    const responses = await Promise.all(
      encodings.map((header) => localFetch(url, { headers: { 'payment-signature': header } })),
    )

    expect(upstream.calls.length - calls).toBe(1)
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses).toEqual([200, 402, 402, 402, 402, 402])
    for (const response of responses.filter((response) => response.status === 402))
      expect(await errorOf(response)).toBe('this payment is already being used by another request')
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
    expect(await settlementsOf(api.id)).toHaveLength(1)
  })
})

/** A TCP listener that takes connections and drops them at once (an upstream that resets); `close` when done. */
async function startResetter(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((socket) => socket.destroy()).listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve(undefined))),
  }
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe("buyer-facing errors never name the upstream's address", () => {
  test.each([
    [
      'is down',
      'down',
      '/weather/x',
      502,
      /^the upstream could not be reached \(ECONNREFUSED\); the payment was not settled$/,
    ],
    [
      'resets the connection',
      'reset',
      '/weather/x',
      502,
      /^the upstream could not be reached \(\w+\); the payment was not settled$/,
    ],
    [
      'does not answer in time',
      'up',
      '/slow',
      504,
      /^the upstream did not answer within 1 s; the payment was not settled$/,
    ],
    ['answers 500', 'up', '/status/500', 502, /^the upstream answered 500; the payment was not settled$/],
    ['answers 503', 'up', '/status/503', 502, /^the upstream answered 503; the payment was not settled$/],
  ])('when the upstream %s', async (_what, state, path, status, error) => {
    const resetter = state === 'reset' ? await startResetter() : undefined
    try {
      const upstreamUrl = state === 'down' ? `http://127.0.0.1:${await closedPort()}` : (resetter?.url ?? upstream.url)
      const seller = await newSeller(t)
      const api = await createApi(t, seller, upstreamUrl)
      await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern: path, accepts: [sandboxAccept(services)] })

      const response = await payingFetch(services, buyer)(`${api.gateway}${path}`)
      expect(response.status).toBe(status)
      const body = await response.text()
      expect(JSON.parse(body).error).toMatch(error)
      const { host, port } = new URL(upstreamUrl)
      expect(body).not.toContain(host)
      expect(body).not.toContain(port)
      expect(body).not.toMatch(/127\.0\.0\.1|localhost|\[::1\]/)
    } finally {
      await resetter?.close()
    }
  })

  test('the log keeps the detail: the address and the error, cut to a bounded length', async () => {
    const lines: string[] = []
    const proxy = createUpstreamProxy({ log: (line) => lines.push(line), timeoutMs: 1_000 })
    const port = await closedPort()
    const request = {
      method: 'GET',
      url: '/x',
      baseUrl: '',
      headers: {},
      protocol: 'http',
      remoteAddress: '127.0.0.1',
      body: Readable.from([]),
      signal: new AbortController().signal,
    }
    try {
      const answer = await proxy.forward(request, {
        origin: `http://127.0.0.1:${port}`,
        path: `/x?${'q'.repeat(5_000)}`,
      })
      expect(answer).toEqual({ ok: false, status: 502, error: 'the upstream could not be reached (ECONNREFUSED)' })
    } finally {
      await proxy.close()
    }
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain(`127.0.0.1:${port}/x`)
    expect(lines[0]).toContain('ECONNREFUSED')
    expect(lines[0]!.length).toBeLessThan(500)
  })
})
