/** `client.events.stream()`: the SSE reader of the SDK, against a real svc, paid and refused with @x402/fetch. */
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { createSvcClient, SvcApiError } from '../../sdk/client.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import type { PaymentEvent } from '../../sdk/types.js'
import { newAccount } from '../helpers/payments.js'
import { startUpstream } from '../server/gateway/helpers.js'
import { createSellerApi } from '../helpers/seller-api.js'

let sandbox: TestSandbox
let upstream: Awaited<ReturnType<typeof startUpstream>>
let apiId: string
const slug = 'events-sdk'

beforeAll(async () => {
  ;[sandbox, upstream] = await Promise.all([startSandbox(), startUpstream()])
  const { api } = await createSellerApi(sandbox, {
    slug,
    name: 'Weather',
    upstreamUrl: upstream.url,
    endpoints: [{ path_pattern: '/weather/{city}', response_schema: { type: 'object' } }],
  })
  apiId = api.id
})
afterAll(async () => {
  await sandbox?.stop()
  await upstream?.stop()
})

const url = (city: string) => `${sandbox.gatewayUrl(slug)}/weather/${city}`

/** A buyer with no USDC, paying with the official client: its payment is refused for its balance. */
function brokeBuyer(): typeof fetch {
  const network = sandbox.network as `${string}:${string}`
  const payer = new x402Client().register(network, new ExactEvmScheme(newAccount()))
  payer.setSpendControls({
    allowedAssets: [{ network, asset: sandbox.usdc.address, maxAmountPerPayment: '10000000' }],
  })
  return wrapFetchWithPayment(localFetch, payer)
}

/** Reads `events` until `until` holds for one; answers all read. */
async function readUntil(events: AsyncIterator<PaymentEvent>, until: (event: PaymentEvent) => boolean) {
  const read: PaymentEvent[] = []
  for (;;) {
    const { value, done } = await events.next()
    if (done) return read
    read.push(value)
    if (until(value)) return read
  }
}

test('a paid and a refused request stream as events, the refusal with its reason', async () => {
  const stop = new AbortController()
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const events = sandbox.seller.client.events.stream({ apiId, signal: stop.signal, onOpen: () => open() })
  const first = events.next()
  await opened
  expect((await sandbox.buyer.fetch(url('Lima'))).status).toBe(200)
  const refused = await brokeBuyer()(url('Quito'))
  expect(refused.status).toBe(402)

  const read = [(await first).value as PaymentEvent, ...(await readUntil(events, (e) => e.type === 'payment.failed'))]
  expect(read.map((e) => `${e.type} ${e.path}`)).toEqual([
    'payment.required /weather/Lima',
    'payment.verified /weather/Lima',
    'payment.settled /weather/Lima',
    'payment.required /weather/Quito',
    'payment.failed /weather/Quito',
  ])
  expect(read.at(-1)).toMatchObject({
    api_slug: slug,
    reason: 'invalid_exact_evm_insufficient_balance',
    status: 402,
    charged: false,
  })
  expect(read.at(-1)?.error).toContain('invalid_exact_evm_insufficient_balance')
  stop.abort()
  expect(await events.next()).toEqual({ value: undefined, done: true })
})

test('a dropped connection reconnects with Last-Event-ID: what was missed comes once', async () => {
  // The transport of each connection, and the Last-Event-ID each one sent: the test cuts the first.
  const connections: { controller: AbortController; lastEventId: string | null }[] = []
  const cutting: typeof fetch = (input, init) => {
    const controller = new AbortController()
    connections.push({ controller, lastEventId: new Headers(init?.headers).get('last-event-id') })
    const signals = [controller.signal, ...(init?.signal ? [init.signal] : [])]
    return localFetch(input, { ...init, signal: AbortSignal.any(signals) })
  }
  const seller = createSvcClient({
    baseUrl: sandbox.sandboxControlUrl,
    apiKey: sandbox.seller.apiKey,
    fetch: cutting,
  })
  let opens = 0
  let onOpen = () => {}
  const events = seller.events.stream({ apiId, retryMs: 50, onOpen: () => (opens++, onOpen()) })
  const opened = (count: number) => new Promise<void>((resolve) => (onOpen = () => opens >= count && resolve()))
  let waiting = opened(1)
  const first = events.next()
  await waiting
  expect((await sandbox.buyer.fetch(url('Oslo'))).status).toBe(200)
  const before = [
    (await first).value as PaymentEvent,
    ...(await readUntil(events, (e) => e.type === 'payment.settled')),
  ]
  waiting = opened(2)
  connections[0]!.controller.abort()
  // Refused while the stream is down or coming back: the replay or the live stream brings it, once.
  expect((await brokeBuyer()(url('Bern'))).status).toBe(402)
  const after = await readUntil(events, (e) => e.type === 'payment.failed')
  await waiting
  expect(connections[1]?.lastEventId).toBe(before.at(-1)?.id)
  expect(after.map((e) => `${e.type} ${e.path}`)).toEqual([
    'payment.required /weather/Bern',
    'payment.failed /weather/Bern',
  ])
  const ids = [...before, ...after].map((e) => e.id)
  expect(new Set(ids).size).toBe(ids.length)
  await events.return()
})

test('a refused stream throws the control plane error at the first next()', async () => {
  const stranger = createSvcClient({
    baseUrl: sandbox.sandboxControlUrl,
    apiKey: 'svc_sandbox_nope',
  })
  await expect(stranger.events.stream().next()).rejects.toBeInstanceOf(SvcApiError)
  await expect(sandbox.seller.client.events.stream({ apiId: 'api_missing' }).next()).rejects.toMatchObject({
    status: 404,
  })
})
