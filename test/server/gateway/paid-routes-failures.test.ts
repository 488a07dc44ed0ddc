import { createServer } from 'node:net'
import { localFetch } from '../../../sdk/local-fetch.js'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import type { LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
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
  // The upstream deadline and the largest answer held, small enough for a test (30 s and 10 MiB in svc).
  const paidRoutes = { timeoutMs: 1_000, maxResponseBytes: 64 * 1024 }
  ;({ services, t, upstream, buyer } = stack = await startGatewayStack({ paidRoutes }))
})
afterAll(async () => {
  await stack?.stop()
})

const settlementsOf = (apiId: string) =>
  t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('the upstream fails: the buyer is not charged', () => {
  test.each([
    [
      'refuses connections',
      'down',
      '/weather/x',
      502,
      /could not be reached \(ECONNREFUSED\); the payment was not settled/,
    ],
    ['answers 500', 'up', '/status/500', 502, /the upstream answered 500; the payment was not settled/],
    ['answers 503', 'up', '/status/503', 502, /the upstream answered 503/],
    ['does not answer in time', 'up', '/slow', 504, /did not answer within 1 s; the payment was not settled/],
    [
      'answers more than the gateway holds',
      'up',
      '/bytes/100000',
      502,
      /larger than 65536 bytes; the payment was not settled/,
    ],
  ])('when it %s', async (_what, state, path, status, error) => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, state === 'down' ? `http://127.0.0.1:${await closedPort()}` : upstream.url)
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern: path, accepts: [sandboxAccept(services)] })
    const before = await usdcBalance(services, buyer.address)

    const response = await payingFetch(services, buyer)(`${api.gateway}${path}`)
    expect(response.status).toBe(status)
    expect(response.headers.get('payment-response')).toBeNull()
    expect(await errorOf(response)).toMatch(error)
    expect(await usdcBalance(services, buyer.address)).toBe(before)
    expect(await usdcBalance(services, seller.payTo)).toBe(0n)
    expect(await settlementsOf(api.id)).toEqual([])
  })

  test('an upstream 404 is passed through as it is, and not charged', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/status/*',
      accepts: [sandboxAccept(services)],
    })
    const before = await usdcBalance(services, buyer.address)
    const response = await payingFetch(services, buyer)(`${api.gateway}/status/404`)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ error: 'status 404' })
    expect(response.headers.get('payment-response')).toBeNull()
    expect(await usdcBalance(services, buyer.address)).toBe(before)
    expect(await settlementsOf(api.id)).toEqual([])
  })
})

describe('a buyer who leaves before the answer is ready', () => {
  test('is not charged: the payment stays unsettled and can be used again', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/delay/{ms}',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/delay/400`
    const signature = await signedPaymentFor(services, buyer, url)
    const before = await usdcBalance(services, buyer.address)
    const calls = upstream.calls.length

    const leaving = new AbortController()
    const abandoned = localFetch(url, { headers: { 'payment-signature': signature }, signal: leaving.signal }).catch(
      (error: unknown) => error,
    )
    await expect.poll(() => upstream.calls.length).toBeGreaterThan(calls)
    leaving.abort()
    expect(await abandoned).toBeInstanceOf(Error)

    // Once the gateway let go of it, the same payment is still good: it was never settled.
    let again: Response | undefined
    await vi.waitFor(
      async () => {
        again = await localFetch(url, { headers: { 'payment-signature': signature } })
        if (again.status === 402)
          expect(await errorOf(again.clone())).not.toBe('this payment is already being used by another request')
      },
      { timeout: 10_000, interval: 20 },
    )
    expect(again!.status).toBe(200)
    expect(await again!.json()).toEqual({ delayed: true })
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
    expect(await settlementsOf(api.id)).toHaveLength(1)
  })
})

describe('a settlement that fails', () => {
  test('is a 402 with the reason, and the upstream answer is not delivered', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/delay/{ms}',
      accepts: [sandboxAccept(services, '10000')],
    })
    // Enough USDC for one payment: both verify (the upstream is slow), the second cannot settle.
    const poor = newAccount()
    await services.manager.fund(poor.address, 'usdc', '0.01')
    const url = `${api.gateway}/delay/300`
    const signatures = [await signedPaymentFor(services, poor, url), await signedPaymentFor(services, poor, url)]
    const calls = upstream.calls.length
    const responses = await Promise.all(
      signatures.map((signature) => localFetch(url, { headers: { 'payment-signature': signature } })),
    )
    expect(upstream.calls.length).toBe(calls + 2)
    const [paid, refused] = responses[0]!.status === 200 ? responses : [responses[1]!, responses[0]!]
    expect(paid!.status).toBe(200)
    expect(refused!.status).toBe(402)
    expect(refused!.headers.get('payment-required')).toBeTruthy()
    // Where x402 puts a refused settlement: PAYMENT-RESPONSE with success false and the scheme's reason.
    const settleAnswer = decodePaymentResponseHeader(refused!.headers.get('payment-response')!)
    expect(settleAnswer).toMatchObject({ success: false, transaction: '', network: 'eip155:845320402' })
    const body = (await refused!.json()) as { error: string; errorReason: string; delayed?: boolean }
    // insufficient balance, or a reverted transfer when both settle at once
    expect(body.error).toMatch(
      /^the payment could not be settled: invalid_exact_evm_(insufficient_balance|transaction_failed)/,
    )
    expect(body.errorReason).toMatch(/^invalid_exact_evm_(insufficient_balance|transaction_failed)$/)
    expect(settleAnswer.errorReason).toBe(body.errorReason)
    expect(body.delayed).toBeUndefined()
    expect(await usdcBalance(services, poor.address)).toBe(0n)
    expect(await usdcBalance(services, seller.payTo)).toBe(10000n)
    expect(await settlementsOf(api.id)).toHaveLength(1)
  })
})

describe('payments the gateway refuses', () => {
  test('a malformed PAYMENT-SIGNATURE, a v1 X-PAYMENT and a payment for other terms are 402s, not 500s', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/weather/Lima`
    const cases: [Record<string, string>, RegExp][] = [
      [{ 'payment-signature': 'not base64 at all!' }, /^malformed PAYMENT-SIGNATURE/],
      [{ 'payment-signature': Buffer.from('{"x402Version":2}').toString('base64') }, /^malformed PAYMENT-SIGNATURE: /],
      [{ 'payment-signature': Buffer.from('[1,2').toString('base64') }, /^malformed PAYMENT-SIGNATURE/],
      [{ 'x-payment': 'e30=' }, /x402 v2 only/],
    ]
    // A real payment, for another price.
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/other',
      accepts: [sandboxAccept(services, '999')],
    })
    cases.push([
      { 'payment-signature': await signedPaymentFor(services, buyer, `${api.gateway}/other`) },
      /matches none of the accepted payment options/,
    ])
    for (const [headers, error] of cases) {
      const response = await localFetch(url, { headers })
      expect(response.status).toBe(402)
      expect(response.headers.get('payment-required')).toBeTruthy()
      expect(await errorOf(response)).toMatch(error)
    }
  })

  test('an unmatched route is a JSON 404 and never reaches the upstream', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const calls = upstream.calls.length
    for (const [method, path] of [
      ['GET', '/echo/free'],
      ['POST', '/weather/Lima'],
      ['GET', '/weather/'],
      ['GET', '/weather/Lima/extra'],
    ] as const) {
      const response = await localFetch(`${api.gateway}${path}`, { method })
      expect(response.status).toBe(404)
      expect(await response.json()).toEqual({ error: `no paid route for ${method} ${path}` })
    }
    // Dot segments are resolved before matching: a priced pattern cannot be walked out of.
    const walked = await localFetch(`${api.gateway}/weather/%2e%2e/echo/free`)
    expect(walked.status).toBe(404)
    expect(upstream.calls.length).toBe(calls)
  })
})

describe('no facilitator', () => {
  test('a production API without SVC_FACILITATOR_URL answers 503 naming it', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url, 'production')
    const accept = {
      scheme: 'exact',
      network: 'eip155:8453',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: '10000',
    }
    await addEndpoint(
      t,
      seller,
      api.id,
      { method: 'GET', path_pattern: '/weather/{city}', accepts: [accept] },
      'production',
    )
    const response = await localFetch(`${api.gateway}/weather/Lima`)
    expect(response.status).toBe(503)
    expect(await errorOf(response)).toMatch(/SVC_FACILITATOR_URL/)
  })

  test('a development API while the Sandbox chain is not running answers 503', async () => {
    const bare = await startTestServer()
    try {
      const seller = await newSeller(bare)
      const api = await createApi(bare, seller, upstream.url)
      await addEndpoint(bare, seller, api.id, {
        method: 'GET',
        path_pattern: '/weather/{city}',
        accepts: [sandboxAccept(services)],
      })
      const response = await localFetch(`${api.gateway}/weather/Lima`)
      expect(response.status).toBe(503)
      expect(await errorOf(response)).toMatch(/Sandbox chain is not running/)
    } finally {
      await bare.stop()
    }
  })
})
