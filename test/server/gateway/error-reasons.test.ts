/**
 * A refused payment reaches the buyer with the scheme's reason: the official @x402/fetch client pays (its transport
 * spoils the payment the way a broken or hostile buyer would), and what it reads back (its onPaymentResponse hook:
 * the PAYMENT-REQUIRED's `error`), the 402's JSON body (`invalidReason`, `invalidMessage`) and the seller's event
 * stream all name the reason code.
 */
import type { PaymentResponseContext } from '@x402/core/client'
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { openTestEventStream, type TestEventStream } from '../../helpers/event-stream.js'
import { newAccount, signPaymentWithTimes } from '../../helpers/payments.js'
import {
  addEndpoint,
  buyerClient,
  createApi,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  type GatewayStack,
  type Seller,
} from './helpers.js'

let stack: GatewayStack
let seller: Seller
let api: Awaited<ReturnType<typeof createApi>>
let events: TestEventStream

beforeAll(async () => {
  stack = await startGatewayStack()
  seller = await newSeller(stack.t)
  api = await createApi(stack.t, seller, stack.upstream.url)
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(stack.services, '10000')],
  })
  events = await openTestEventStream({
    baseUrl: stack.t.server.sandboxControlUrl,
    headers: { authorization: `Bearer ${seller.jwt}`, 'x-svc-environment': 'development' },
  })
})
afterAll(async () => {
  events?.close()
  await stack?.stop()
})

const nextFailure = () => events.until('payment.failed')

type Spoil = (signature: string) => Promise<string> | string

/** Pays `city` with @x402/fetch, its PAYMENT-SIGNATURE passed through `spoil`; what the client and the body saw. */
async function payWith(buyer: Parameters<typeof buyerClient>[1], city: string, spoil: Spoil = (s) => s) {
  const client = buyerClient(stack.services, buyer)
  let seen: PaymentResponseContext | undefined
  client.onPaymentResponse(async (context) => {
    seen = context
  })
  const transport = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const request = new Request(input, init)
    const signature = request.headers.get('payment-signature')
    if (signature) request.headers.set('payment-signature', await spoil(signature))
    return localFetch(request)
  }) as typeof fetch
  const response = await wrapFetchWithPayment(transport, client)(`${api.gateway}/weather/${city}`)
  const body = (await response.json()) as { error: string; invalidReason?: string; invalidMessage?: string }
  return { status: response.status, body, seen }
}

describe('a refused payment, paid with @x402/fetch', () => {
  test.each([
    {
      what: 'a bad signature',
      reason: 'invalid_exact_evm_signature',
      buyer: () => stack.buyer,
      spoil: ((signature) => {
        const payment = decodePaymentSignatureHeader(signature)
        const payload = payment.payload as { signature: Hex }
        // Another signer's signature over the same authorization.
        const flipped = `${payload.signature.slice(0, 10)}${payload.signature[10] === 'a' ? 'b' : 'a'}${payload.signature.slice(11)}`
        return encodePaymentSignatureHeader({ ...payment, payload: { ...payment.payload, signature: flipped } })
      }) satisfies Spoil,
    },
    {
      what: 'an insufficient balance',
      reason: 'invalid_exact_evm_insufficient_balance',
      buyer: () => newAccount(),
      spoil: undefined,
    },
    {
      what: 'an expired authorization',
      reason: 'invalid_exact_evm_payload_authorization_valid_before',
      buyer: () => stack.buyer,
      spoil: (async (signature) => {
        const payment = decodePaymentSignatureHeader(signature)
        const now = BigInt(Math.floor(Date.now() / 1000))
        const expired = await signPaymentWithTimes(stack.services.sandboxChain, stack.buyer, payment.accepted, {
          validAfter: 0n,
          validBefore: now - 60n,
        })
        return encodePaymentSignatureHeader({ ...payment, payload: expired.payload })
      }) satisfies Spoil,
    },
  ])('$what: the reason code at the buyer, in the 402 body and in the events', async ({ reason, buyer, spoil }) => {
    const calls = stack.upstream.calls.length
    const paid = await payWith(buyer(), `r${Math.random().toString(36).slice(2, 8)}`, spoil)
    expect(paid.status).toBe(402)
    expect(paid.seen?.paymentRequired?.error).toContain(reason)
    expect(paid.body.error).toContain(`the payment is invalid: ${reason}`)
    expect(paid.body.invalidReason).toBe(reason)
    const failure = await nextFailure()
    expect(failure).toMatchObject({ reason, status: 402, charged: false })
    expect(failure.error).toContain(reason)
    expect(stack.upstream.calls.length).toBe(calls)
  })
})
