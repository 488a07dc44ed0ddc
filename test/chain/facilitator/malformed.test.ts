import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { logLineLimit } from '../../../core/http.js'
import { newAccount, postJson, sandboxRequirements, signPayment } from '../../helpers/payments.js'

let services: ChainServices
let buyer: LocalAccount
let payload: PaymentPayload
let requirements: PaymentRequirements
const logged: string[] = []

beforeAll(async () => {
  services = await startChainServices({ log: (line) => logged.push(line) })
  buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '1')
  requirements = sandboxRequirements(services.sandboxChain, { payTo: newAccount().address })
  payload = await signPayment(services.sandboxChain, buyer, requirements)
})
afterAll(() => services?.stop())

type Mutation = (payload: any, requirements: any) => void
const huge = 'x'.repeat(200_000)

/** Malformed fields (the ones the issue found first, then their neighbours) and the 400 each must answer. */
const cases: [string, Mutation, 'invalid_payload' | 'invalid_payment_requirements', string][] = [
  [
    'authorization.value "abc"',
    (p) => void (p.payload.authorization.value = 'abc'),
    'invalid_payload',
    'paymentPayload.payload.authorization.value: expected a uint256 as a decimal string',
  ],
  [
    'authorization.validBefore {}',
    (p) => void (p.payload.authorization.validBefore = {}),
    'invalid_payload',
    'paymentPayload.payload.authorization.validBefore: expected a uint256 as a decimal string',
  ],
  [
    'payTo "x"',
    (_p, r) => void (r.payTo = 'x'),
    'invalid_payment_requirements',
    'paymentRequirements.payTo: expected an address (0x + 40 hex digits)',
  ],
  [
    'amount "1e400"',
    (_p, r) => void (r.amount = '1e400'),
    'invalid_payment_requirements',
    'paymentRequirements.amount: expected a uint256 as a decimal string',
  ],
  [
    'amount above uint256',
    (_p, r) => void (r.amount = (2n ** 256n).toString()),
    'invalid_payment_requirements',
    'paymentRequirements.amount: expected a uint256 as a decimal string',
  ],
  [
    'amount negative',
    (_p, r) => void (r.amount = '-1'),
    'invalid_payment_requirements',
    'paymentRequirements.amount: expected a uint256 as a decimal string',
  ],
  [
    'asset "x"',
    (_p, r) => void (r.asset = 'x'),
    'invalid_payment_requirements',
    'paymentRequirements.asset: expected an address (0x + 40 hex digits)',
  ],
  [
    'maxTimeoutSeconds 1.5',
    (_p, r) => void (r.maxTimeoutSeconds = 1.5),
    'invalid_payment_requirements',
    'paymentRequirements.maxTimeoutSeconds: expected a whole number of seconds',
  ],
  [
    'extra.version 2',
    (_p, r) => void (r.extra.version = 2),
    'invalid_payment_requirements',
    'paymentRequirements.extra.version: expected a string',
  ],
  [
    'validAfter "0x10"',
    (p) => void (p.payload.authorization.validAfter = '0x10'),
    'invalid_payload',
    'paymentPayload.payload.authorization.validAfter: expected a uint256 as a decimal string',
  ],
  [
    'from "x"',
    (p) => void (p.payload.authorization.from = 'x'),
    'invalid_payload',
    'paymentPayload.payload.authorization.from: expected an address (0x + 40 hex digits)',
  ],
  [
    'to a number',
    (p) => void (p.payload.authorization.to = 5),
    'invalid_payload',
    'paymentPayload.payload.authorization.to: expected an address (0x + 40 hex digits)',
  ],
  [
    'nonce short',
    (p) => void (p.payload.authorization.nonce = '0x01'),
    'invalid_payload',
    'paymentPayload.payload.authorization.nonce: expected 32 bytes of hex (0x + 64 hex digits)',
  ],
  [
    'signature odd hex',
    (p) => void (p.payload.signature = '0xabc'),
    'invalid_payload',
    'paymentPayload.payload.signature: expected hex bytes (0x + an even number of hex digits)',
  ],
  [
    'authorization null',
    (p) => void (p.payload.authorization = null),
    'invalid_payload',
    'paymentPayload.payload.authorization: expected {from, to, value, validAfter, validBefore, nonce}',
  ],
  [
    'accepted.amount "abc"',
    (p) => void (p.accepted.amount = 'abc'),
    'invalid_payload',
    'paymentPayload.accepted.amount: expected a uint256 as a decimal string',
  ],
]

describe('malformed payment fields → 400 with the x402 reason, never 500', () => {
  test.each(cases)('%s', async (_name, mutate, reason, message) => {
    const before = logged.length
    for (const route of ['verify', 'settle'] as const) {
      const paymentPayload = structuredClone(payload)
      const paymentRequirements = structuredClone(requirements)
      mutate(paymentPayload, paymentRequirements)
      const { status, body } = await postJson(`${services.facilitatorUrl}/${route}`, {
        x402Version: 2,
        paymentPayload,
        paymentRequirements,
      })
      expect([route, status]).toEqual([route, 400])
      if (route === 'verify')
        expect(body).toEqual({ error: message, isValid: false, invalidReason: reason, invalidMessage: message })
      else
        expect(body).toEqual({
          error: message,
          success: false,
          errorReason: reason,
          errorMessage: message,
          transaction: '',
          network: '',
        })
    }
    expect(logged.slice(before)).toEqual([])
  })

  test('a huge malformed value is not echoed: the answer stays small', async () => {
    const paymentPayload = structuredClone(payload) as any
    paymentPayload.payload.authorization.value = huge
    paymentPayload.payload.authorization[huge] = 1
    const { status, body } = await postJson(`${services.facilitatorUrl}/verify`, {
      x402Version: 2,
      paymentPayload,
      paymentRequirements: requirements,
    })
    expect(status).toBe(400)
    expect(JSON.stringify(body).length).toBeLessThan(2_000)
  })

  test('the valid payment still verifies', async () => {
    const { status, body } = await postJson(`${services.facilitatorUrl}/verify`, {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: requirements,
    })
    expect([status, body]).toEqual([200, { isValid: true, payer: buyer.address }])
  })
})

describe('a real internal fault', () => {
  test('is still a 500 "internal error", logged in one bounded line', async () => {
    const original = services.facilitator.facilitator.verify
    services.facilitator.facilitator.verify = () => Promise.reject(new Error(`an unexpected fault ${huge}`))
    const before = logged.length
    try {
      const { status, body } = await postJson(`${services.facilitatorUrl}/verify`, {
        x402Version: 2,
        paymentPayload: payload,
        paymentRequirements: requirements,
      })
      expect([status, body]).toEqual([500, { error: 'internal error' }])
    } finally {
      services.facilitator.facilitator.verify = original
    }
    const lines = logged.slice(before)
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/^internal error: Error: an unexpected fault x+/)
    expect(lines[0]!.length).toBeLessThanOrEqual(logLineLimit)
  })
})
