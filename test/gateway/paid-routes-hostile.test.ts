import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { newAccount } from '../helpers/payments.js'
import { addEndpoint, createApi, errorOf, newSeller, sandboxAccept, signedPaymentFor, startUpstream, usdcBalance } from './helpers.js'

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
  await t?.stop()
  await upstream?.stop()
  await services?.stop()
})

const settlementsOf = (apiId: string) => t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()

/** The same value with every object's keys in reverse order. */
function reversedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversedKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.entries(value).reverse().map(([key, inner]) => [key, reversedKeys(inner)]))
}

const base64 = (json: string) => Buffer.from(json).toString('base64')

describe('one payment, however it is encoded', () => {
  test('re-encodings of one signed payment sent at once: one upstream call, one charge, the others refused', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern: '/delay/{ms}', accepts: [sandboxAccept(services)] })
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

    const responses = await Promise.all(encodings.map((header) => localFetch(url, { headers: { 'payment-signature': header } })))

    expect(upstream.calls.length - calls).toBe(1)
    const statuses = responses.map((response) => response.status).sort()
    expect(statuses).toEqual([200, 402, 402, 402, 402, 402])
    for (const response of responses.filter((response) => response.status === 402))
      expect(await errorOf(response)).toBe('this payment is already being used by another request')
    expect(await usdcBalance(services, buyer.address)).toBe(before - 10000n)
    expect(await settlementsOf(api.id)).toHaveLength(1)
  })
})
