import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseUnits, type LocalAccount } from 'viem'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import {
  newAccount,
  postJson,
  getJson,
  sandboxRequirements,
  signPayment,
  signPaymentWithTimes,
} from '../../helpers/payments.js'

let services: ChainServices
let buyer: LocalAccount
const seller = newAccount().address

beforeAll(async () => {
  services = await startChainServices()
  buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '100')
})
afterAll(() => services?.stop())

const usdcBalance = (address: `0x${string}`) =>
  services.sandboxChain.client.readContract({
    address: services.sandboxChain.usdc.address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })
/** Transactions sent by the relayer pool so far (all its accounts). */
const relayerNonce = async () => {
  const counts = await Promise.all(
    services.sandboxChain.accounts.relayers.map((account) =>
      services.sandboxChain.client.getTransactionCount({ address: account.address }),
    ),
  )
  return counts.reduce((sum, count) => sum + count, 0)
}

const verify = (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
  postJson(`${services.facilitatorUrl}/verify`, { x402Version: 2, paymentPayload, paymentRequirements })
const settle = (paymentPayload: PaymentPayload, paymentRequirements: PaymentRequirements) =>
  postJson(`${services.facilitatorUrl}/settle`, { x402Version: 2, paymentPayload, paymentRequirements })

describe('GET /supported', () => {
  test('v2 exact, upto, batch-settlement and auth-capture on the sandbox network only, with the relayer as signer', async () => {
    const { status, body } = await getJson(`${services.facilitatorUrl}/supported`)
    expect(status).toBe(200)
    expect(body.kinds).toEqual([
      { x402Version: 2, scheme: 'exact', network: 'eip155:845320402' },
      {
        x402Version: 2,
        scheme: 'upto',
        network: 'eip155:845320402',
        extra: { facilitatorAddress: expect.any(String) },
      },
      {
        x402Version: 2,
        scheme: 'batch-settlement',
        network: 'eip155:845320402',
        extra: { receiverAuthorizer: services.facilitator.receiverAuthorizer },
      },
      {
        x402Version: 2,
        scheme: 'auth-capture',
        network: 'eip155:845320402',
        extra: { captureAuthorizer: services.facilitator.operator, authCaptureEscrow: expect.any(String) },
      },
    ])
    const relayers = services.sandboxChain.accounts.relayers.map((account) => account.address)
    expect(relayers).toContain(body.kinds[1].extra.facilitatorAddress)
    expect(body.signers['eip155:*']).toEqual(relayers)
  })
})

describe('a valid payment', () => {
  test('verifies, settles, and moves USDC from payer to payTo', async () => {
    const payTo = newAccount().address
    const requirements = sandboxRequirements(services.sandboxChain, { payTo, amount: '250000' })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    const before = await usdcBalance(buyer.address)

    const verified = await verify(payload, requirements)
    expect(verified).toEqual({ status: 200, body: { isValid: true, payer: buyer.address } })

    const settled = await settle(payload, requirements)
    expect(settled.status).toBe(200)
    expect(settled.body).toMatchObject({ success: true, payer: buyer.address, network: 'eip155:845320402' })
    expect(settled.body.transaction).toMatch(/^0x[0-9a-f]{64}$/)

    const receipt = await services.sandboxChain.client.getTransactionReceipt({ hash: settled.body.transaction })
    expect(receipt.status).toBe('success')
    expect(await usdcBalance(payTo)).toBe(250000n)
    expect(await usdcBalance(buyer.address)).toBe(before - 250000n)
  })

  test('a replayed payment is refused with invalid_exact_evm_nonce_already_used', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    expect((await settle(payload, requirements)).body.success).toBe(true)

    const replay = await verify(payload, requirements)
    expect(replay.body).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' })
    expect(replay.body.invalidMessage).toContain('authorization is used or canceled')

    // The same authorization re-sent inside another payload (other resource, same signature) is not a new payment.
    const other = { ...payload, resource: { url: 'http://api.test/other' } }
    expect((await verify(other, requirements)).body.invalidReason).toBe('invalid_exact_evm_nonce_already_used')
  })
})

describe('idempotent settle', () => {
  test('settling the same payload twice answers the first transaction and sends one', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    const nonceBefore = await relayerNonce()
    const balanceBefore = await usdcBalance(buyer.address)

    const first = await settle(payload, requirements)
    const second = await settle(payload, requirements)
    expect(first.body.success).toBe(true)
    expect(second.body).toEqual(first.body)
    expect(await relayerNonce()).toBe(nonceBefore + 1)
    expect(await usdcBalance(buyer.address)).toBe(balanceBefore - 10000n)
  })

  test('concurrent settles of one payload send one transaction', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    const nonceBefore = await relayerNonce()
    const balanceBefore = await usdcBalance(buyer.address)

    const results = await Promise.all(Array.from({ length: 12 }, () => settle(payload, requirements)))
    const transactions = new Set(results.map((r) => r.body.transaction))
    expect(results.every((r) => r.body.success)).toBe(true)
    expect(transactions.size).toBe(1)
    expect(await relayerNonce()).toBe(nonceBefore + 1)
    expect(await usdcBalance(buyer.address)).toBe(balanceBefore - 10000n)
  })

  test('a failed settlement is not remembered: the payer can fix the cause and retry', async () => {
    const poor = newAccount()
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, poor, requirements)
    const failed = await settle(payload, requirements)
    expect(failed.body).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
      transaction: '',
    })

    await services.manager.fund(poor.address, 'usdc', '1')
    const retried = await settle(payload, requirements)
    expect(retried.body.success).toBe(true)
  })
})

describe('reason codes', () => {
  const now = () => BigInt(Math.floor(Date.now() / 1000))

  test('expired authorization', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPaymentWithTimes(services.sandboxChain, buyer, requirements, {
      validAfter: 0n,
      validBefore: now() - 10n,
    })
    expect((await verify(payload, requirements)).body.invalidReason).toBe(
      'invalid_exact_evm_payload_authorization_valid_before',
    )
    expect((await settle(payload, requirements)).body).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_payload_authorization_valid_before',
    })
  })

  test('not-yet-valid authorization', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPaymentWithTimes(services.sandboxChain, buyer, requirements, {
      validAfter: now() + 3600n,
      validBefore: now() + 7200n,
    })
    expect((await verify(payload, requirements)).body.invalidReason).toBe(
      'invalid_exact_evm_payload_authorization_valid_after',
    )
    expect((await settle(payload, requirements)).body.errorReason).toBe(
      'invalid_exact_evm_payload_authorization_valid_after',
    )
  })

  test('wrong recipient', async () => {
    const signed = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, buyer, signed)
    const other = { ...signed, payTo: newAccount().address }
    expect((await verify(payload, other)).body.invalidReason).toBe('invalid_exact_evm_recipient_mismatch')
    expect((await settle(payload, other)).body.errorReason).toBe('invalid_exact_evm_recipient_mismatch')
  })

  test('wrong amount', async () => {
    const signed = sandboxRequirements(services.sandboxChain, { payTo: seller, amount: '10000' })
    const payload = await signPayment(services.sandboxChain, buyer, signed)
    const pricier = { ...signed, amount: '20000' }
    const expected = 'invalid_exact_evm_payload_authorization_value_mismatch'
    expect((await verify(payload, pricier)).body.invalidReason).toBe(expected)
    expect((await settle(payload, pricier)).body.errorReason).toBe(expected)
  })

  test('insufficient balance', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, {
      payTo: seller,
      amount: parseUnits('1000000', 6).toString(),
    })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    expect((await verify(payload, requirements)).body.invalidReason).toBe('invalid_exact_evm_insufficient_balance')
    expect((await settle(payload, requirements)).body.errorReason).toBe('invalid_exact_evm_insufficient_balance')
  })

  test('signature by another key', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, newAccount(), requirements)
    const forged = {
      ...payload,
      payload: {
        ...payload.payload,
        authorization: { ...(payload.payload as any).authorization, from: buyer.address },
      },
    }
    expect((await verify(forged, requirements)).body.invalidReason).toBe('invalid_exact_evm_signature')
    expect((await settle(forged, requirements)).body.errorReason).toBe('invalid_exact_evm_signature')
  })

  test('wrong EIP-712 token name', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, {
      payTo: seller,
      extra: { name: 'USD Coin', version: '2' },
    })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    // Signed over another domain: the token recovers a different signer.
    expect((await verify(payload, requirements)).body.invalidReason).toBe('invalid_exact_evm_token_name_mismatch')
  })

  test('another network, scheme or version is refused before any chain call', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    expect((await verify(payload, { ...requirements, network: 'eip155:8453' })).body.invalidReason).toBe(
      'invalid_network',
    )
    expect((await settle(payload, { ...requirements, network: 'eip155:8453' })).body.errorReason).toBe(
      'invalid_network',
    )
  })
})

describe('bad requests', () => {
  test('malformed JSON → 400 {error}', async () => {
    const { status, body } = await postJson(`${services.facilitatorUrl}/verify`, '{"x402Version":')
    expect(status).toBe(400)
    expect(body).toEqual({ error: 'malformed JSON body' })
  })

  test('missing payload → 400 with invalid_payload', async () => {
    const { status, body } = await postJson(`${services.facilitatorUrl}/settle`, { x402Version: 2 })
    expect(status).toBe(400)
    expect(body).toMatchObject({ success: false, errorReason: 'invalid_payload' })
    expect(body.error).toMatch(/^paymentPayload/)
  })

  test('missing requirements → 400 with invalid_payment_requirements', async () => {
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller })
    const payload = await signPayment(services.sandboxChain, buyer, requirements)
    const { status, body } = await postJson(`${services.facilitatorUrl}/verify`, {
      x402Version: 2,
      paymentPayload: payload,
    })
    expect(status).toBe(400)
    expect(body).toMatchObject({ isValid: false, invalidReason: 'invalid_payment_requirements' })
  })

  test('unknown route → 404 JSON', async () => {
    const { status, body } = await getJson(`${services.facilitatorUrl}/nope`)
    expect(status).toBe(404)
    expect(body.error).toBe('no route for GET /nope')
  })
})
