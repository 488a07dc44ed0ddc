/**
 * x402's `auth-capture` scheme (escrow payments) on svc's facilitator over HTTP `/verify` and `/settle`, with payloads
 * the official client makes (`@x402/evm/auth-capture/client`) and lifecycle payloads core's builders sign with a
 * receiver authorizer's key: a payment authorized, partly captured, the rest voided, partly refunded (balances and
 * the escrow's `paymentState` asserted at each step), and every refusal of the issue's Bad input with its exact reason,
 * nothing moved, never a 500. One sandbox, one authorized payment reused where the case allows.
 */
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { type Address, erc20Abi, type Hex, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { readPaymentEvents, readPaymentState } from '../../../chain/auth-capture/index.js'
import { approvePermit2For } from '../../../chain/permit2/index.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { offeredEscrow, packageDeployment, v1_0Escrow } from '../../../core/auth-capture/deployments.js'
import { normalizeExtra } from '../../../core/auth-capture/extra.js'
import {
  buildCapture,
  buildRefund,
  buildVoid,
  completeCharge,
  type LifecycleTarget,
} from '../../../core/auth-capture/lifecycle-payloads.js'
import { type ReadPayload, readPayload } from '../../../core/auth-capture/read-payload.js'
import { reopenCollect } from '../../../core/auth-capture/reopen.js'
import type { CollectPayload, LifecyclePayload } from '../../../core/auth-capture/types.js'
import { getJson, postJson } from '../../helpers/payments.js'

let services: ChainServices
let operator: Address
const buyer = privateKeyToAccount(generatePrivateKey())
const authorizer = privateKeyToAccount(generatePrivateKey())
const stranger = privateKeyToAccount(generatePrivateKey())
const payTo = privateKeyToAccount(generatePrivateKey()).address
const price = 10_000n
const prefix = 'invalid_auth_capture_evm_'

beforeAll(async () => {
  services = await startChainServices()
  operator = services.facilitator.operator
  await services.manager.fund(buyer.address, 'usdc', '1')
})
afterAll(() => services?.stop())

const now = () => services.clock.nowSeconds()
function requirementsWith(extra: Record<string, unknown> = {}, top: Partial<PaymentRequirements> = {}) {
  const chain = services.sandboxChain
  return {
    scheme: 'auth-capture',
    network: chain.network,
    asset: chain.usdc.address,
    amount: price.toString(),
    payTo,
    maxTimeoutSeconds: 60,
    ...top,
    extra: {
      name: chain.usdc.name,
      version: chain.usdc.version,
      authCaptureEscrow: offeredEscrow,
      captureAuthorizer: operator,
      receiverAuthorizer: authorizer.address,
      captureDeadline: now() + 3_600,
      refundDeadline: now() + 7_200,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeRecipient: zeroAddress,
      captureMode: 'deferred',
      ...extra,
    },
  } as PaymentRequirements
}

/** The official client's payment for `requirements`. */
async function collectPayload(requirements: PaymentRequirements): Promise<PaymentPayload> {
  const { payload } = await new AuthCaptureEvmScheme(buyer).createPaymentPayload(2, requirements as never)
  return { x402Version: 2, resource: { url: 'http://api.test/paid' }, accepted: requirements, payload } as never
}

/** The payment a collect made: what its lifecycle payloads name. */
function targetOf(requirements: PaymentRequirements, payment: PaymentPayload): LifecycleTarget {
  const normal = normalizeExtra(requirements.extra)
  if (!normal.ok) throw new Error(normal.message)
  const read = readPayload(payment.payload) as Extract<ReadPayload, { kind: 'eip3009' }>
  const reopened = reopenCollect({
    chainId: services.sandboxChain.chainId,
    requirements,
    extra: normal.extra,
    deployments: normal.deployments,
    read,
  })
  if (!reopened.ok) throw new Error(reopened.message)
  return {
    chainId: services.sandboxChain.chainId,
    deployment: packageDeployment,
    paymentInfo: reopened.paymentInfo,
    saltNonce: read.payload.saltNonce!,
  }
}

const lifecycle = (requirements: PaymentRequirements, payload: LifecyclePayload | Record<string, unknown>) =>
  ({ x402Version: 2, resource: { url: 'http://api.test/paid' }, accepted: requirements, payload }) as PaymentPayload

async function verify(payload: PaymentPayload, requirements: PaymentRequirements) {
  const answer = await postJson(`${services.facilitatorUrl}/verify`, {
    x402Version: 2,
    paymentPayload: payload,
    paymentRequirements: requirements,
  })
  expect(answer.status).toBe(200)
  return answer.body as { isValid: boolean; invalidReason?: string; invalidMessage?: string }
}
async function settle(payload: PaymentPayload, requirements: PaymentRequirements) {
  const answer = await postJson(`${services.facilitatorUrl}/settle`, {
    x402Version: 2,
    paymentPayload: payload,
    paymentRequirements: requirements,
  })
  expect(answer.status).toBe(200)
  return answer.body as {
    success: boolean
    errorReason?: string
    errorMessage?: string
    transaction: string
    amount?: string
    extra?: Record<string, unknown>
  }
}

const usdcOf = (address: Address) =>
  services.sandboxChain.client.readContract({
    address: services.sandboxChain.usdc.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })
const hashOf = (target: LifecycleTarget) => settledHash.get(target)!
const settledHash = new Map<LifecycleTarget, Hex>()
const stateOf = async (target: LifecycleTarget) => {
  const state = await readPaymentState(services.sandboxChain.client, packageDeployment.escrow, hashOf(target))
  return [state.capturableAmount, state.refundableAmount]
}
/** Balances of the buyer, the receiver and the escrow's view of the payment, to see that nothing moved. */
const snapshot = async (target: LifecycleTarget) => [
  await usdcOf(buyer.address),
  await usdcOf(payTo),
  ...(await stateOf(target)),
]

/** A lifecycle refusal at /verify and /settle with its reason, and nothing moved. */
async function refused(target: LifecycleTarget, requirements: PaymentRequirements, payload: unknown, reason: string) {
  const before = await snapshot(target)
  const paid = lifecycle(requirements, payload as LifecyclePayload)
  const verified = await verify(paid, requirements)
  expect(verified, JSON.stringify(verified)).toMatchObject({ isValid: false, invalidReason: `${prefix}${reason}` })
  const settled = await settle(paid, requirements)
  expect(settled, JSON.stringify(settled)).toMatchObject({ success: false, errorReason: `${prefix}${reason}` })
  expect(await snapshot(target)).toEqual(before)
}

describe('auth-capture on svc’s facilitator', () => {
  let requirements: PaymentRequirements
  let target: LifecycleTarget

  test('/supported lists it on the Sandbox chain with svc’s operator (relayer account 1) and the package’s escrow', async () => {
    const supported = await getJson(`${services.facilitatorUrl}/supported`)
    const kind = (
      supported.body as { kinds: { scheme: string; network: string; extra?: Record<string, string> }[] }
    ).kinds.find((k) => k.scheme === 'auth-capture' && k.network === services.sandboxChain.network)
    expect(kind?.extra).toEqual({ captureAuthorizer: operator, authCaptureEscrow: offeredEscrow })
    expect(operator).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
  })

  test('a collect refused: v1.0 and unknown escrow, a salt that does not reopen, an operator not svc’s, fee terms that break the fee system', async () => {
    requirements = requirementsWith()
    const payment = await collectPayload(requirements)
    const cases: [string, PaymentPayload, PaymentRequirements, string][] = [
      ['v1.0 escrow', payment, requirementsWith({ authCaptureEscrow: v1_0Escrow }), 'extra'],
      ['unknown escrow', payment, requirementsWith({ authCaptureEscrow: stranger.address }), 'extra'],
      [
        'salt binding',
        { ...payment, payload: { ...payment.payload, saltNonce: `0x${'12'.repeat(32)}` } },
        requirements,
        'salt_binding_mismatch',
      ],
      ['operator', payment, requirementsWith({ captureAuthorizer: stranger.address }), 'operator_not_admitted'],
      [
        'counterfactual payer',
        {
          ...payment,
          payload: {
            ...payment.payload,
            signature: `${(payment.payload as { signature: Hex }).signature}${'6492'.repeat(16)}`,
          },
        },
        requirements,
        'erc6492_factory_not_allowed',
      ],
      ['fee bounds', payment, requirementsWith({ minFeeBps: 100, maxFeeBps: 50 }), 'extra'],
      ['feeBps (v1.0)', { ...payment, payload: { ...payment.payload, feeBps: 0 } }, requirements, 'payload_format'],
      [
        'sync without receiverAuthorizer',
        payment,
        requirementsWith({ receiverAuthorizer: undefined, captureMode: 'sync' }),
        'extra',
      ],
    ]
    const tooSoon = requirementsWith({ captureDeadline: now() + 30 })
    cases.push(['capture deadline before the timeout', await collectPayload(tooSoon), tooSoon, 'deadline_ordering'])
    const before = await usdcOf(buyer.address)
    for (const [name, payload, reqs, reason] of cases) {
      const verified = await verify(payload, reqs)
      expect(verified.invalidReason, name).toBe(`${prefix}${reason}`)
      const settled = await settle(payload, reqs)
      // Requirements and shape (steps 1–5) are refused as such; the payment's own checks are settle's re-verification.
      if (['salt_binding_mismatch', 'erc6492_factory_not_allowed', 'deadline_ordering'].includes(reason)) {
        expect(settled.errorReason, name).toBe(`${prefix}verification_failed`)
        expect(settled.errorMessage, name).toContain(`${prefix}${reason}`)
      } else expect(settled.errorReason, name).toBe(`${prefix}${reason}`)
    }
    expect(await usdcOf(buyer.address)).toBe(before)
  })

  test('malformed payloads and requirements are refused with a reason, never a 500', async () => {
    const payment = await collectPayload(requirements)
    const cases: [string, PaymentPayload, PaymentRequirements, string][] = [
      ['no shape', { ...payment, payload: { nonsense: true } }, requirements, 'payload_format'],
      ['no salt', { ...payment, payload: { ...payment.payload, salt: undefined } }, requirements, 'payload_format'],
      ['unknown type', { ...payment, payload: { type: 'settle' } }, requirements, 'payload_type'],
      [
        'lifecycle without paymentInfo',
        { ...payment, payload: { type: 'void', saltNonce: `0x${'00'.repeat(32)}` } },
        requirements,
        'payload_format',
      ],
      ['amount above uint120', payment, { ...requirements, amount: (2n ** 120n).toString() }, 'amount_overflow'],
      ['extra missing', payment, { ...requirements, extra: {} }, 'extra'],
      ['autoCapture', payment, requirementsWith({ autoCapture: true }), 'unsupported_payment_flow'],
      ['custom operator', payment, requirementsWith({ operatorType: 'custom' }), 'unsupported_operator_type'],
    ]
    for (const [name, payload, reqs, reason] of cases) {
      expect((await verify(payload, reqs)).invalidReason, name).toBe(`${prefix}${reason}`)
      expect((await settle(payload, reqs)).errorReason, name).toBe(`${prefix}${reason}`)
    }
  })

  test('authorize: the hold moves into the escrow', async () => {
    const payment = await collectPayload(requirements)
    target = targetOf(requirements, payment)
    const before = await usdcOf(buyer.address)
    expect(await verify(payment, requirements)).toMatchObject({ isValid: true })
    const settled = await settle(payment, requirements)
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true, amount: price.toString() })
    settledHash.set(target, settled.extra!.paymentInfoHash as Hex)
    expect(await usdcOf(buyer.address)).toBe(before - price)
    expect(await stateOf(target)).toEqual([price, 0n])
    // The same collect again answers its first transaction (the settled-payload memory), nothing sent twice.
    expect((await settle(payment, requirements)).transaction).toBe(settled.transaction)
    expect(await usdcOf(buyer.address)).toBe(before - price)
  })

  test('lifecycle refusals on the held payment: nothing moves', async () => {
    const state = { expectedCapturableAmount: price, expectedRefundableAmount: 0n }
    await refused(
      target,
      requirements,
      await buildCapture(target, { amount: price + 1n, ...state }, authorizer),
      'insufficient_authorization',
    )
    await refused(
      target,
      requirements,
      await buildCapture(target, { amount: 4_000n, ...state }, stranger),
      'authorizer_signature',
    )
    await refused(
      target,
      requirements,
      await buildCapture(
        target,
        { amount: 4_000n, expectedCapturableAmount: 9_000n, expectedRefundableAmount: 0n },
        authorizer,
      ),
      'unexpected_payment_state',
    )
    await refused(
      target,
      requirements,
      await buildCapture(target, { amount: 4_000n, feeAmount: 1n, ...state }, authorizer),
      'fee_bps_out_of_range',
    )
    await refused(
      target,
      requirements,
      await buildCapture(target, { amount: price, ...state, voidRest: true }, authorizer),
      'void_remainder_full_capture',
    )
    await refused(
      target,
      requirements,
      await buildRefund(target, { amount: 1n, ...state }, authorizer),
      'refund_exceeds_capture',
    )
    const capture = await buildCapture(target, { amount: 4_000n, ...state }, authorizer)
    await refused(target, requirements, { ...capture, saltNonce: `0x${'34'.repeat(32)}` }, 'salt_binding_mismatch')
    await refused(target, requirements, { ...capture, type: 'settle' }, 'payload_type')
    await refused(target, requirements, await buildVoid(target, stranger), 'authorizer_signature')
  })

  test('a partial capture, then a void of the rest, then a refund funded by the receiver', async () => {
    const buyerBefore = await usdcOf(buyer.address)
    const capture = lifecycle(
      requirements,
      await buildCapture(
        target,
        { amount: 4_000n, expectedCapturableAmount: price, expectedRefundableAmount: 0n },
        authorizer,
      ),
    )
    expect(await verify(capture, requirements)).toMatchObject({ isValid: true })
    const captured = await settle(capture, requirements)
    expect(captured, JSON.stringify(captured)).toMatchObject({ success: true, amount: '4000' })
    expect(await stateOf(target)).toEqual([6_000n, 4_000n])
    expect(await usdcOf(payTo)).toBe(4_000n)
    // Resent, the same capture answers its first transaction and captures nothing more.
    expect((await settle(capture, requirements)).transaction).toBe(captured.transaction)
    expect(await stateOf(target)).toEqual([6_000n, 4_000n])

    const voiding = lifecycle(requirements, await buildVoid(target, authorizer))
    const voided = await settle(voiding, requirements)
    expect(voided, JSON.stringify(voided)).toMatchObject({ success: true, amount: '6000' })
    expect(await stateOf(target)).toEqual([0n, 4_000n])
    expect(await usdcOf(buyer.address)).toBe(buyerBefore + 6_000n)
    // A second void: nothing is held (its identical resend answers the first transaction).
    expect(await verify(voiding, requirements)).toMatchObject({ invalidReason: `${prefix}zero_authorization` })
    expect((await settle(voiding, requirements)).transaction).toBe(voided.transaction)
    await refused(
      target,
      requirements,
      await buildCapture(
        target,
        { amount: 1n, expectedCapturableAmount: 0n, expectedRefundableAmount: 4_000n },
        authorizer,
      ),
      'zero_authorization',
    )

    const refundState = { expectedCapturableAmount: 0n, expectedRefundableAmount: 4_000n }
    // Without the receiver's allowance to the operator, a refund is not funded.
    await refused(
      target,
      requirements,
      await buildRefund(target, { amount: 1_000n, ...refundState }, authorizer),
      'refund_funding_unavailable',
    )
    await refused(
      target,
      requirements,
      await buildRefund(target, { amount: 5_000n, ...refundState }, authorizer),
      'refund_exceeds_capture',
    )
    // The seller's consent: its allowance to the operator, as the faucet's approve_escrow_operator makes it.
    const approved = await postJson(`${services.chainManagerUrl}/faucet`, {
      address: payTo,
      asset: 'eth',
      amount: '0.01',
      approve_escrow_operator: true,
    })
    expect(approved.status).toBe(200)
    expect(approved.body.transactions.escrow_operator_approval).toMatch(/^0x[0-9a-f]{64}$/)
    const refunded = await settle(
      lifecycle(requirements, await buildRefund(target, { amount: 1_000n, ...refundState }, authorizer)),
      requirements,
    )
    expect(refunded, JSON.stringify(refunded)).toMatchObject({ success: true, amount: '1000' })
    expect(await stateOf(target)).toEqual([0n, 3_000n])
    expect(await usdcOf(payTo)).toBe(3_000n)
    expect(await usdcOf(buyer.address)).toBe(buyerBefore + 7_000n)
    // What recovery reads of a payment: its Payment* events, from the block its first action began at.
    const actions = services.facilitator.escrowActions.recent()
    const events = await readPaymentEvents(services.sandboxChain.client, packageDeployment.escrow, hashOf(target), {
      fromBlock: BigInt(actions[0]!.fromBlock),
    })
    expect(events.map((event) => [event.name, event.amount])).toEqual([
      ['PaymentAuthorized', price],
      ['PaymentCaptured', 4_000n],
      ['PaymentVoided', 6_000n],
      ['PaymentRefunded', 1_000n],
    ])
    expect(events.at(-1)!.transaction).toBe(refunded.transaction)
    expect(actions.at(-1)).toMatchObject({
      kind: 'refund',
      paymentInfoHash: hashOf(target),
      transaction: refunded.transaction,
      fundingTransaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount: '1000',
    })
    expect(actions.map((action) => [action.kind, action.state])).toEqual([
      ['authorize', 'settled'],
      ['capture', 'settled'],
      ['void', 'settled'],
      ['refund', 'settled'],
    ])
  })

  test('a sync close-out: a capture with voidAuthorizerSignature captures part and voids the rest in one /settle', async () => {
    const payment = await collectPayload(requirements)
    const closing = targetOf(requirements, payment)
    const settled = await settle(payment, requirements)
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true })
    settledHash.set(closing, settled.extra!.paymentInfoHash as Hex)
    const [buyerBefore, sellerBefore] = [await usdcOf(buyer.address), await usdcOf(payTo)]
    const closed = await settle(
      lifecycle(
        requirements,
        await buildCapture(
          closing,
          { amount: 3_000n, expectedCapturableAmount: price, expectedRefundableAmount: 0n, voidRest: true },
          authorizer,
        ),
      ),
      requirements,
    )
    expect(closed, JSON.stringify(closed)).toMatchObject({ success: true, amount: '3000', extra: { voided: '7000' } })
    expect(await stateOf(closing)).toEqual([0n, 3_000n])
    expect(await usdcOf(payTo)).toBe(sellerBefore + 3_000n)
    expect(await usdcOf(buyer.address)).toBe(buyerBefore + 7_000n)
  })

  test('the authorization flow: a charge settles only completed, with the receiver authorizer’s consent', async () => {
    const charging = requirementsWith({ paymentFlow: 'authorization', captureMode: undefined })
    const payment = await collectPayload(charging)
    const target = targetOf(charging, payment)
    const normal = normalizeExtra(charging.extra)
    if (!normal.ok) throw new Error(normal.message)
    const reopened = reopenCollect({
      chainId: services.sandboxChain.chainId,
      requirements: charging,
      extra: normal.extra,
      deployments: normal.deployments,
      read: readPayload(payment.payload) as Extract<ReadPayload, { kind: 'eip3009' }>,
    })
    if (!reopened.ok) throw new Error(reopened.message)
    const complete = (signer: typeof authorizer, amount: bigint) =>
      completeCharge(
        {
          chainId: services.sandboxChain.chainId,
          reopened,
          method: 'eip3009',
          payload: payment.payload as unknown as CollectPayload,
          amount,
        },
        signer,
      )
    const [buyerBefore, sellerBefore] = [await usdcOf(buyer.address), await usdcOf(payTo)]
    // The raw payment verifies (the server completes it after its handler); settled raw, it is refused.
    expect(await verify(payment, charging)).toMatchObject({ isValid: true })
    expect(await settle(payment, charging)).toMatchObject({
      success: false,
      errorReason: `${prefix}verification_failed`,
      errorMessage: expect.stringContaining(`${prefix}payload_format`),
    })
    const byStranger = { ...payment, payload: await complete(stranger, 7_500n) } as PaymentPayload
    expect(await verify(byStranger, charging)).toMatchObject({ invalidReason: `${prefix}authorizer_signature` })
    const above = { ...payment, payload: await complete(authorizer, price + 1n) } as PaymentPayload
    expect(await verify(above, charging)).toMatchObject({ invalidReason: `${prefix}amount_mismatch` })
    // A charge needs a receiver authorizer.
    const unsigned = requirementsWith({
      paymentFlow: 'authorization',
      captureMode: undefined,
      receiverAuthorizer: undefined,
    })
    const unsignedPayment = await collectPayload(unsigned)
    expect(await verify(unsignedPayment, unsigned)).toMatchObject({
      invalidReason: `${prefix}missing_receiver_authorizer`,
    })
    expect(await usdcOf(buyer.address)).toBe(buyerBefore)

    const charged = await settle(
      { ...payment, payload: await complete(authorizer, 7_500n) } as PaymentPayload,
      charging,
    )
    expect(charged, JSON.stringify(charged)).toMatchObject({ success: true, amount: '7500' })
    settledHash.set(target, charged.extra!.paymentInfoHash as Hex)
    expect(await stateOf(target)).toEqual([0n, 7_500n])
    expect(await usdcOf(buyer.address)).toBe(buyerBefore - 7_500n)
    expect(await usdcOf(payTo)).toBe(sellerBefore + 7_500n)
    // Nothing is held by a charge: capture and void are refused as such.
    await refused(target, charging, await buildVoid(target, authorizer), 'payload_type')
  })

  test('Permit2: the client’s Permit2 authorization is held as EIP-3009’s is', async () => {
    await approvePermit2For(services.sandboxChain, buyer.address)
    const viaPermit2 = requirementsWith({ assetTransferMethod: 'permit2' })
    const payment = await collectPayload(viaPermit2)
    const before = await usdcOf(buyer.address)
    expect(await verify(payment, viaPermit2)).toMatchObject({ isValid: true })
    // Its method must be extra's.
    expect(await verify(payment, requirements)).toMatchObject({ invalidReason: `${prefix}payload_method_mismatch` })
    const settled = await settle(payment, viaPermit2)
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true, amount: price.toString() })
    expect(await usdcOf(buyer.address)).toBe(before - price)
  })

  test('a collect refused for its signature, its payer’s balance, or a lifecycle without a receiver authorizer', async () => {
    const payment = await collectPayload(requirements)
    const signature = (payment.payload as { signature: Hex }).signature
    const forged = {
      ...payment,
      payload: {
        ...payment.payload,
        signature: `${signature.slice(0, 10)}${signature[10] === 'a' ? 'b' : 'a'}${signature.slice(11)}`,
      },
    } as PaymentPayload
    expect(await verify(forged, requirements)).toMatchObject({ invalidReason: `${prefix}signature` })
    const broke = privateKeyToAccount(generatePrivateKey())
    const { payload } = await new AuthCaptureEvmScheme(broke).createPaymentPayload(2, requirements as never)
    const unfunded = { ...payment, payload } as PaymentPayload
    expect(await verify(unfunded, requirements)).toMatchObject({ invalidReason: `${prefix}insufficient_balance` })
    const unsigned = requirementsWith({ receiverAuthorizer: undefined })
    expect(await verify(lifecycle(unsigned, await buildVoid(target, authorizer)), unsigned)).toMatchObject({
      invalidReason: `${prefix}lifecycle_not_relayed`,
    })
  })

  test('after the deadlines (svc’s clock and the chain’s time moved): capture and refund refused', async () => {
    const short = requirementsWith({ captureDeadline: now() + 120, refundDeadline: now() + 180 })
    const payment = await collectPayload(short)
    const shortTarget = targetOf(short, payment)
    const settled = await settle(payment, short)
    expect(settled, JSON.stringify(settled)).toMatchObject({ success: true })
    settledHash.set(shortTarget, settled.extra!.paymentInfoHash as Hex)
    const capture = await buildCapture(
      shortTarget,
      { amount: 1_000n, expectedCapturableAmount: price, expectedRefundableAmount: 0n },
      authorizer,
    )
    // As `svc time advance 200s` does: svc's clock and the chain's time together.
    services.clock.setOffset(services.clock.offsetMs + 200_000)
    await services.sandboxChain.testClient.increaseTime({ seconds: 200 })
    await services.sandboxChain.testClient.mine({ blocks: 1 })
    await refused(shortTarget, short, capture, 'capture_deadline_expired')
    await refused(
      shortTarget,
      short,
      await buildRefund(
        shortTarget,
        { amount: 1n, expectedCapturableAmount: price, expectedRefundableAmount: 0n },
        authorizer,
      ),
      'refund_deadline_expired',
    )
  })
})
