import { decodePaymentRequiredHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  sandboxAccept,
  signedPaymentFor,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let stack: GatewayStack | undefined
let buyer: LocalAccount
let url: string
let signed: Record<string, any>
let upstreamCalls: () => number

beforeAll(async () => {
  ;({ services, t, buyer } = stack = await startGatewayStack())
  const seller = await newSeller(t)
  const api = await createApi(t, seller, stack.upstream.url)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(services)],
  })
  url = `${api.gateway}/weather/Lima`
  signed = JSON.parse(Buffer.from(await signedPaymentFor(services, buyer, url), 'base64').toString('utf8'))
  const upstream = stack.upstream
  upstreamCalls = () => upstream.calls.length
})
afterAll(() => stack?.stop())

const base64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64')

/** The signed payment with one change. */
function mutated(change: (payment: any) => void): string {
  const payment = structuredClone(signed)
  change(payment)
  return base64(payment)
}

const fieldCases: [string, (payment: any) => void, string][] = [
  [
    'authorization.value "abc"',
    (p) => void (p.payload.authorization.value = 'abc'),
    'payload.authorization.value: expected a uint256 as a decimal string',
  ],
  [
    'authorization.validBefore {}',
    (p) => void (p.payload.authorization.validBefore = {}),
    'payload.authorization.validBefore: expected a uint256 as a decimal string',
  ],
  [
    'authorization.validAfter "1e400"',
    (p) => void (p.payload.authorization.validAfter = '1e400'),
    'payload.authorization.validAfter: expected a uint256 as a decimal string',
  ],
  [
    'authorization.from "x"',
    (p) => void (p.payload.authorization.from = 'x'),
    'payload.authorization.from: expected an address (0x + 40 hex digits)',
  ],
  [
    'authorization.nonce 7',
    (p) => void (p.payload.authorization.nonce = 7),
    'payload.authorization.nonce: expected 32 bytes of hex (0x + 64 hex digits)',
  ],
  [
    'signature "zz"',
    (p) => void (p.payload.signature = 'zz'),
    'payload.signature: expected hex bytes (0x + an even number of hex digits)',
  ],
  [
    'authorization []',
    (p) => void (p.payload.authorization = []),
    'payload.authorization: expected {from, to, value, validAfter, validBefore, nonce}',
  ],
]

describe('a malformed field inside PAYMENT-SIGNATURE → 402 saying which, never 502', () => {
  test.each(fieldCases)('%s', async (_name, change, problem) => {
    const calls = upstreamCalls()
    const before = await usdcBalance(services, buyer.address)
    const response = await localFetch(url, { headers: { 'payment-signature': mutated(change) } })
    expect(response.status).toBe(402)
    const body = (await response.json()) as { error: string; accepts: unknown[] }
    expect(body.error).toBe(`malformed PAYMENT-SIGNATURE: ${problem}`)
    expect(body.accepts).toHaveLength(1)
    expect(decodePaymentRequiredHeader(response.headers.get('payment-required')!).error).toBe(body.error)
    expect(upstreamCalls()).toBe(calls)
    expect(await usdcBalance(services, buyer.address)).toBe(before)
  })

  test('terms that are not the route’s (accepted.payTo "x", accepted.amount "1e400") → 402', async () => {
    for (const change of [(p: any) => void (p.accepted.payTo = 'x'), (p: any) => void (p.accepted.amount = '1e400')]) {
      const response = await localFetch(url, { headers: { 'payment-signature': mutated(change) } })
      expect(response.status).toBe(402)
      expect(((await response.json()) as { error: string }).error).toMatch(
        /matches none of the accepted payment options/,
      )
    }
  })

  test('a payload the gateway leaves to the facilitator, refused there with 400 invalid_payload → 402 with its reason', async () => {
    const header = mutated((p) => void (p.payload = { signature: p.payload.signature, permit2Authorization: { x: 1 } }))
    const response = await localFetch(url, { headers: { 'payment-signature': header } })
    expect(response.status).toBe(402)
    expect(((await response.json()) as { error: string }).error).toBe(
      // A Permit2 payload is checked as one (exact via Permit2), field by field.
      'the payment is invalid: invalid_payload (paymentPayload.payload.permit2Authorization.from: expected an address (0x + 40 hex digits))',
    )
  })

  test('a huge x402Version is not echoed in full', async () => {
    const response = await localFetch(url, {
      headers: { 'payment-signature': mutated((p) => void (p.x402Version = '9'.repeat(8_000))) },
    })
    expect(response.status).toBe(402)
    const { error } = (await response.json()) as { error: string }
    expect(error).toMatch(/^PAYMENT-SIGNATURE carries x402 version "9+… \(8002 characters\): svc speaks x402 v2 only$/)
    expect(error.length).toBeLessThan(200)
  })

  test('a long path no route prices is a 404 that echoes it cut', async () => {
    const path = `/weather/Lima/${'x'.repeat(5_000)}`
    const response = await localFetch(`${new URL(url).origin}${path}`)
    expect(response.status).toBe(404)
    const { error } = (await response.json()) as { error: string }
    expect(error).toMatch(/^no paid route for GET \/weather\/Lima\/x+… \(5014 characters\)$/)
    expect(error.length).toBeLessThan(200)
  })

  test('the unchanged payment still pays', async () => {
    const response = await localFetch(url, { headers: { 'payment-signature': base64(signed) } })
    expect(response.status).toBe(200)
  })
})
