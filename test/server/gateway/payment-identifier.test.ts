import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { wrapFetchWithPayment } from '@x402/fetch'
import {
  PAYMENT_IDENTIFIER,
  appendPaymentIdentifierToExtensions,
  generatePaymentId,
} from '@x402/extensions/payment-identifier'
import type { LocalAccount } from 'viem'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { ChainServices } from '../../../chain/services.js'
import type { TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import {
  addEndpoint,
  buyerClient,
  createApi,
  errorOf,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
  type startUpstream,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let stack: GatewayStack | undefined
let buyer: LocalAccount
let api: { id: string; gateway: string }
let seller: Awaited<ReturnType<typeof newSeller>>

beforeAll(async () => {
  ;({ services, t, upstream, buyer } = stack = await startGatewayStack())
  seller = await newSeller(t)
  api = await createApi(t, seller, upstream.url)
  for (const path_pattern of ['/weather/{city}', '/delay/{ms}'])
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern, accepts: [sandboxAccept(services, '10000')] })
})
afterAll(async () => {
  await stack?.stop()
})

const settlements = () =>
  t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', api.id).execute()
const upstreamCalls = (path: string) => upstream.calls.filter((call) => call.url === path).length

/** The official client as the package's example writes it: one payment id for one logical request, set by a hook. */
function fetchWithPaymentId(payer: LocalAccount, paymentId: string): typeof fetch {
  const client = buyerClient(services, payer)
  client.onBeforePaymentCreation(async ({ paymentRequired }) => {
    if (!paymentRequired.extensions) {
      paymentRequired.extensions = {}
    }
    appendPaymentIdentifierToExtensions(paymentRequired.extensions, paymentId)
  })
  return wrapFetchWithPayment(localFetch, client)
}

/** A signed payment for `url` whose payment-identifier extension is `extension` as given (for malformed shapes). */
async function paymentWithExtension(url: string, extension: unknown): Promise<string> {
  const probe = await localFetch(url)
  const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
  const payload = await buyerClient(services, buyer).createPaymentPayload(required)
  return encodePaymentSignatureHeader({
    ...payload,
    extensions: { ...payload.extensions, [PAYMENT_IDENTIFIER]: extension },
  })
}

describe('payment-identifier through the gateway', () => {
  test('every 402 declares it, optional', async () => {
    const response = await localFetch(`${api.gateway}/weather/Oslo`)
    expect(response.status).toBe(402)
    const required = decodePaymentRequiredHeader(response.headers.get('payment-required')!)
    expect(required.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: false } })
  })

  test('a retry with the same id gets the first answer again: one settlement, one transfer, one upstream call', async () => {
    const paymentId = generatePaymentId()
    const fetchWithPayment = fetchWithPaymentId(buyer, paymentId)
    const before = await usdcBalance(services, buyer.address)
    const settledBefore = (await settlements()).length

    const first = await fetchWithPayment(`${api.gateway}/weather/Paris`)
    const second = await fetchWithPayment(`${api.gateway}/weather/Paris`)

    expect(first.status).toBe(200)
    expect(second.status).toBe(200)
    expect(await second.json()).toEqual(await first.json())
    expect(second.headers.get('payment-response')).toBe(first.headers.get('payment-response'))
    expect(second.headers.get('x-upstream')).toBe(first.headers.get('x-upstream'))
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
    expect((await settlements()).length).toBe(settledBefore + 1)
    expect(upstreamCalls('/weather/Paris')).toBe(1)
  })

  test('the very same PAYMENT-SIGNATURE resent gets the kept answer too', async () => {
    const paymentId = generatePaymentId()
    const url = `${api.gateway}/weather/Lima`
    const probe = await localFetch(url)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    appendPaymentIdentifierToExtensions(required.extensions!, paymentId)
    const header = encodePaymentSignatureHeader(await buyerClient(services, buyer).createPaymentPayload(required))
    const first = await localFetch(url, { headers: { 'payment-signature': header } })
    const second = await localFetch(url, { headers: { 'payment-signature': header } })
    expect([first.status, second.status]).toEqual([200, 200])
    expect(await second.text()).toBe(await first.text())
    expect(second.headers.get('payment-response')).toBe(first.headers.get('payment-response'))
    expect(upstreamCalls('/weather/Lima')).toBe(1)
  })

  test('a duplicate while the first is in flight gets a 409 to retry, then the first answer', async () => {
    const paymentId = generatePaymentId()
    const fetchWithPayment = fetchWithPaymentId(buyer, paymentId)
    const before = await usdcBalance(services, buyer.address)
    const url = `${api.gateway}/delay/400`

    const first = fetchWithPayment(url)
    await vi.waitFor(() => expect(upstreamCalls('/delay/400')).toBe(1))
    const duplicate = await fetchWithPayment(url)
    expect(duplicate.status).toBe(409)
    expect(duplicate.headers.get('retry-after')).toBe('1')
    expect(await errorOf(duplicate)).toMatch(/still in flight/)

    const answered = await first
    expect(answered.status).toBe(200)
    const retried = await fetchWithPayment(url)
    expect(retried.status).toBe(200)
    expect(await retried.json()).toEqual(await answered.json())
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
    expect(upstreamCalls('/delay/400')).toBe(1)
  })

  test('the same id for another request is a 409: nothing charged, nothing forwarded', async () => {
    const paymentId = generatePaymentId()
    const fetchWithPayment = fetchWithPaymentId(buyer, paymentId)
    expect((await fetchWithPayment(`${api.gateway}/weather/Rome`)).status).toBe(200)
    const before = await usdcBalance(services, buyer.address)
    const settledBefore = (await settlements()).length

    const other = await fetchWithPayment(`${api.gateway}/weather/Berlin`)
    expect(other.status).toBe(409)
    expect(await errorOf(other)).toMatch(/payment-identifier id was used for a different request/)
    expect(other.headers.get('retry-after')).toBeNull()
    expect(await usdcBalance(services, buyer.address)).toBe(before)
    expect((await settlements()).length).toBe(settledBefore)
    expect(upstreamCalls('/weather/Berlin')).toBe(0)
  })

  test('another payer with the same id pays for its own answer', async () => {
    const paymentId = generatePaymentId()
    const other = newAccount()
    await services.manager.fund(other.address, 'usdc', '1')
    expect((await fetchWithPaymentId(buyer, paymentId)(`${api.gateway}/weather/Kyiv`)).status).toBe(200)
    expect((await fetchWithPaymentId(other, paymentId)(`${api.gateway}/weather/Kyiv`)).status).toBe(200)
    expect(await usdcBalance(services, other.address)).toBe(1_000_000n - 10000n)
    expect(upstreamCalls('/weather/Kyiv')).toBe(2)
  })

  test.each([
    ['an id too short', { info: { required: false, id: 'short' } }, /Invalid payment ID format/],
    [
      'an id with other characters',
      { info: { required: false, id: 'pay_0123456789abcdef!' } },
      /Invalid payment ID format/,
    ],
    ['no required flag', { info: { id: 'pay_0123456789abcdef' } }, /'required' boolean/],
    ['no info', 'pay_0123456789abcdef', /must be an object/],
    ['an id of 3,000 characters', { info: { required: false, id: 'x'.repeat(3000) } }, /Invalid payment ID format/],
    [
      '100 unknown fields',
      {
        info: {
          required: false,
          id: 'x'.repeat(3000),
          ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, 'y'.repeat(50)])),
        },
      },
      /./,
    ],
  ])('%s is a 400: nothing charged, nothing forwarded', async (_, extension, message) => {
    const before = await usdcBalance(services, buyer.address)
    const header = await paymentWithExtension(`${api.gateway}/weather/Quito`, extension)
    const response = await localFetch(`${api.gateway}/weather/Quito`, { headers: { 'payment-signature': header } })
    expect(response.status).toBe(400)
    const error = await errorOf(response)
    expect(error).toMatch(message)
    expect(error.length).toBeLessThanOrEqual(1000) // the package's messages may quote the input: bounded
    expect(await usdcBalance(services, buyer.address)).toBe(before)
    expect(upstreamCalls('/weather/Quito')).toBe(0)
  })

  test('an endpoint that requires it says so in its 402 and refuses a payment without an id (400, nothing charged)', async () => {
    const record = await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/files/{name}',
      accepts: [sandboxAccept(services, '10000')],
      payment_identifier_required: true,
    })
    expect(record.payment_identifier_required).toBe(true)
    const probe = await localFetch(`${api.gateway}/files/a`)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    expect(required.extensions?.[PAYMENT_IDENTIFIER]).toMatchObject({ info: { required: true } })

    const before = await usdcBalance(services, buyer.address)
    const without = await wrapFetchWithPayment(localFetch, buyerClient(services, buyer))(`${api.gateway}/files/a`)
    expect(without.status).toBe(400)
    expect(await errorOf(without)).toBe('Server requires a payment identifier but none was provided')
    expect(await usdcBalance(services, buyer.address)).toBe(before)
    expect(upstreamCalls('/files/a')).toBe(0)

    const withId = await fetchWithPaymentId(buyer, generatePaymentId())(`${api.gateway}/files/a`)
    expect(withId.status).toBe(200)
    expect(upstreamCalls('/files/a')).toBe(1)
  })

  test('the kept answer is in the database (it outlives a restart), scoped by API, payer and id', async () => {
    const paymentId = generatePaymentId()
    await fetchWithPaymentId(buyer, paymentId)(`${api.gateway}/weather/Cairo`)
    const rows = await t.server.database.db
      .selectFrom('payment_answers')
      .selectAll()
      .where('payment_id', '=', paymentId)
      .execute()
    expect(rows).toEqual([expect.objectContaining({ api_id: api.id, payer: buyer.address.toLowerCase(), status: 200 })])
  })
})
