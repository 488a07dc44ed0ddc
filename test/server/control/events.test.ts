/**
 * GET /events, the live payment stream: what a seller sees of its own payments as `@x402/fetch` pays the gateway,
 * who may see what, replays after a reconnection, and slow readers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { SvcApiError } from '../../../core/errors.js'
import { eventStreamDefaults } from '../../../server/control/events.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  type GatewayStack,
  type Seller,
} from '../gateway/helpers.js'
import { openTestEventStream } from '../../helpers/event-stream.js'
import { paymentEventFields } from '../../helpers/payment-events.js'

let stack: GatewayStack
let seller: Seller
let other: Seller
let api: Awaited<ReturnType<typeof createApi>>
let otherApi: Awaited<ReturnType<typeof createApi>>
let key: string
const streams: (() => void)[] = []

beforeAll(async () => {
  stack = await startGatewayStack()
  const { t, services, upstream } = stack
  ;[seller, other] = await Promise.all([newSeller(t), newSeller(t)])
  api = await createApi(t, seller, upstream.url)
  otherApi = await createApi(t, other, upstream.url)
  for (const [owner, created] of [
    [seller, api],
    [other, otherApi],
  ] as const)
    await addEndpoint(t, owner, created.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
  key = await t.createKey(seller.jwt, 'development', ['settlements:read'])
})
afterEach(async () => {
  for (const close of streams.splice(0)) close()
  await stack.t.call('/dev/faults', { host: 'development', method: 'DELETE' })
})
afterAll(() => stack?.stop())

/** Opens the stream on the Sandbox control plane with `headers`; `next(n)` reads the next n events. */
const open = (headers: Record<string, string>, options: { apiId?: string; lastEventId?: string } = {}) =>
  openTestEventStream({ baseUrl: stack.t.server.sandboxControlUrl, headers, ...options }, streams)

const asKey = (secret: string) => ({ 'x-api-key': secret })
const asJwt = (jwt: string) => ({ authorization: `Bearer ${jwt}`, 'x-svc-environment': 'development' })

describe('what a seller sees', () => {
  test('a paid request: payment.required, payment.verified, payment.settled with the payer, the amount, the transaction and the settlement', async () => {
    const stream = await open(asKey(key))
    const paid = await payingFetch(stack.services, stack.buyer)(`${api.gateway}/weather/Lima`)
    expect(paid.status).toBe(200)
    const [required, verified, settled] = await stream.next(3)
    const common = {
      environment: 'development',
      api_id: api.id,
      api_slug: api.slug,
      method: 'GET',
      path: '/weather/Lima',
      amount: '10000',
      asset: stack.services.sandboxChain.usdc.address,
      pay_to: seller.payTo,
    }
    expect(required).toMatchObject({ type: 'payment.required', status: 402, charged: false, payer: null, ...common })
    expect(verified).toMatchObject({ type: 'payment.verified', status: 200, payer: stack.buyer.address, ...common })
    expect(settled).toMatchObject({
      type: 'payment.settled',
      status: 200,
      charged: true,
      payer: stack.buyer.address,
      ...common,
    })
    expect(settled!.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    const { body } = await stack.t.call('/settlements', { host: 'development', key })
    expect(body.settlements[0]).toMatchObject({ id: settled!.settlement_id, transaction: settled!.transaction })
    expect(required!.id < verified!.id && verified!.id < settled!.id).toBe(true)
  })

  test('failures: a refused payment with its x402 reason; an upstream failure, not charged', async () => {
    const stream = await open(asJwt(seller.jwt), { apiId: api.id })
    const pay = payingFetch(stack.services, stack.buyer)
    await stack.t.call('/dev/faults', {
      host: 'development',
      body: { kind: 'verify', reason: 'invalid_exact_evm_signature', times: 1 },
    })
    expect((await pay(`${api.gateway}/weather/Oslo`)).status).toBe(402)
    const [, refused] = await stream.next(2)
    expect(refused).toMatchObject({
      type: 'payment.failed',
      status: 402,
      reason: 'invalid_exact_evm_signature',
      charged: false,
      payer: stack.buyer.address,
    })
    expect(refused!.error).toMatch(/^the payment is invalid: invalid_exact_evm_signature/)

    await stack.t.call('/dev/faults', { host: 'development', body: { kind: 'upstream', status: 500, times: 1 } })
    expect((await pay(`${api.gateway}/weather/Oslo`)).status).toBe(502)
    const [, , upstreamFailed] = await stream.next(3)
    expect(upstreamFailed).toMatchObject({
      type: 'upstream.failed',
      status: 502,
      charged: false,
      error: 'the upstream answered 500; the payment was not settled',
    })
  })

  test("another seller's payments are not seen, nor may its API be named", async () => {
    const stream = await open(asKey(key))
    await payingFetch(stack.services, stack.buyer)(`${otherApi.gateway}/weather/Rome`)
    await payingFetch(stack.services, stack.buyer)(`${api.gateway}/weather/Rome`)
    const [first] = await stream.next(1)
    expect(first).toMatchObject({ api_id: api.id, type: 'payment.required' })
    await expect(open(asKey(key), { apiId: otherApi.id })).rejects.toMatchObject({
      status: 404,
      message: expect.stringMatching(/^api not found: /),
    })
    // The other seller's own JWT sees its API.
    const theirs = await open(asJwt(other.jwt))
    await localFetch(`${otherApi.gateway}/weather/Rome`)
    expect((await theirs.next(1))[0]).toMatchObject({ api_id: otherApi.id, type: 'payment.required' })
  })

  test('a client that reconnects with Last-Event-ID first gets what it missed', async () => {
    const first = await open(asKey(key))
    await localFetch(`${api.gateway}/weather/Kyiv`)
    const [seen] = await first.next(1)
    first.close()
    await localFetch(`${api.gateway}/weather/Lyon`)
    await localFetch(`${api.gateway}/weather/Nice`)
    const again = await open(asKey(key), { lastEventId: seen!.id })
    expect((await again.next(2)).map((event) => event.path)).toEqual(['/weather/Lyon', '/weather/Nice'])
  })
})

describe('who may', () => {
  test('API keys need settlements:read; no credential is a 401', async () => {
    const without = await stack.t.createKey(seller.jwt, 'development', ['apis:read', 'stats:read'])
    await expect(open(asKey(without))).rejects.toMatchObject({ status: 403, message: 'insufficient scope' })
    await expect(open({})).rejects.toBeInstanceOf(SvcApiError)
    await expect(open({})).rejects.toMatchObject({ status: 401, message: 'unauthorized' })
  })
})

describe('a slow reader', () => {
  test('is disconnected once its unsent events pass the bound, never waited for', async () => {
    const saved = eventStreamDefaults.maxBufferedBytes
    eventStreamDefaults.maxBufferedBytes = 64 * 1024
    try {
      const response = await localFetch(`${stack.t.server.sandboxControlUrl}/events`, { headers: asKey(key) })
      expect(response.status).toBe(200)
      // Nothing is read while 20,000 events (about 20 MB) are published.
      const template = paymentEventFields({
        api_id: api.id,
        api_slug: api.slug,
        endpoint_id: null,
        path: `/${'x'.repeat(600)}`,
      })
      const published = 20_000
      for (let i = 0; i < published; i++) stack.t.server.events.publish(seller.userId, template)
      let received = 0
      try {
        for await (const chunk of response.body!) received += (chunk as Uint8Array).length
      } catch {
        // The connection was cut.
      }
      expect(received).toBeLessThan(published * 600)
    } finally {
      eventStreamDefaults.maxBufferedBytes = saved
    }
  })
})

describe('streams per credential (issue 21.7)', () => {
  test('one more stream than the cap is a 429 that says so; other credentials are not affected; closing one frees a place', async () => {
    const cap = eventStreamDefaults.maxStreamsPerCredential
    // A seller of its own: the thousands of events the slow-reader test published for `seller` may still be arriving
    // on PostgreSQL, and would cut a held stream that nobody reads (a slow reader), freeing a place too early.
    const fresh = await newSeller(stack.t)
    const key = await stack.t.createKey(fresh.jwt, 'development', ['settlements:read'])
    const held = []
    for (let i = 0; i < cap; i++) held.push(await open(asKey(key)))
    const refused = await localFetch(`${stack.t.server.sandboxControlUrl}/events`, { headers: asKey(key) })
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('5')
    expect(await refused.json()).toEqual({
      error: `too many event streams for this credential: ${cap} are open, the most is ${cap}; close one first`,
    })
    // The seller's session is another credential.
    await open(asJwt(seller.jwt))
    held[0]!.close()
    await expect
      .poll(async () => {
        const again = await localFetch(`${stack.t.server.sandboxControlUrl}/events`, { headers: asKey(key) })
        await again.body?.cancel()
        return again.status
      })
      .toBe(200)
  })
})

describe('who changed everyone', () => {
  test("time travel by svc up's owner reaches every seller's stream (whatever api_id) with actor local", async () => {
    const mine = await open(asKey(key), { apiId: api.id })
    const theirs = await open(asJwt(other.jwt))
    expect((await stack.t.call('/dev/time/advance', { host: 'development', body: { seconds: 60 } })).status).toBe(200)
    for (const stream of [mine, theirs]) {
      // On PostgreSQL the events an earlier test published by the thousand may still be on their way: skip them.
      let [event] = (await stream.next(1)) as unknown as Record<string, unknown>[]
      while (String(event?.type).startsWith('payment.'))
        [event] = (await stream.next(1)) as unknown as Record<string, unknown>[]
      expect(event).toMatchObject({
        type: 'sandbox.time_advanced',
        actor: 'local',
        seconds: 60,
        environment: 'development',
      })
    }
  })
})
