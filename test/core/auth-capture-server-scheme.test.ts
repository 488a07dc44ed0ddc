/**
 * `AuthCaptureServerScheme` (core/auth-capture/server-scheme.ts) in `@x402/core`'s `x402ResourceServer`, without a
 * chain: the requirements it writes for an accept (the facilitator's operator and escrow, its receiver authorizer,
 * the flow, zero fees, deadlines on the 60 s grid of the clock it is given), that core matches a payment across a
 * step of that grid (`dynamicExtraFields`), and what core sends the facilitator in each settle phase of a payment the
 * official client (`@x402/evm/auth-capture/client`) signed: the collect before the handler; after it, in sync mode,
 * a capture (handler 200; a partial capture with the void of the rest under a settlement override) or a void
 * (handler 404), signed by the receiver authorizer; nothing in deferred mode. The facilitator here only records what
 * it is sent and answers success: what it does with it is test/chain/facilitator/auth-capture-express.test.ts's.
 */
import { x402Client } from '@x402/core/client'
import { type FacilitatorClient, x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse, SupportedKind } from '@x402/core/types'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { type Address, type Hex, recoverTypedDataAddress, zeroAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { offeredEscrow, packageDeployment } from '../../core/auth-capture/deployments.js'
import { paymentInfoHash } from '../../core/auth-capture/hashes.js'
import { acceptedDeadlineFits, gridDeadline } from '../../core/auth-capture/deadlines.js'
import { AuthCaptureServerScheme } from '../../core/auth-capture/server-scheme.js'
import { captureTypedData, voidTypedData } from '../../core/auth-capture/typed-data.js'
import type { CapturePayload, PaymentInfo, VoidPayload } from '../../core/auth-capture/types.js'
import { sandboxChainId, sandboxNetwork, usdcAddress } from '../../core/sandbox-usdc.js'

const operator: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const payTo: Address = '0x000000000000000000000000000000000000bEEF'
const kind: SupportedKind = {
  x402Version: 2,
  scheme: 'auth-capture',
  network: sandboxNetwork,
  extra: { captureAuthorizer: operator, authCaptureEscrow: offeredEscrow },
}

/** A facilitator that answers /supported with the auth-capture kind and records every /settle, answering success. */
function recordingFacilitator() {
  const settled: { payload: PaymentPayload; requirements: PaymentRequirements }[] = []
  let n = 0
  const facilitator: FacilitatorClient = {
    verify: async () => ({ isValid: true }),
    settle: async (payload, requirements): Promise<SettleResponse> => {
      settled.push({ payload, requirements })
      n += 1
      return {
        success: true,
        transaction: `0x${n.toString(16).padStart(64, '0')}`,
        network: requirements.network,
        payer: '0x0000000000000000000000000000000000000001',
        amount: requirements.amount,
      }
    },
    getSupported: async () => ({ kinds: [kind], extensions: [], signers: {} }),
  }
  return { facilitator, settled }
}

/** A resource server with the scheme, its clock at `nowMs`, and a buyer signing with the official client. */
async function setUp(options: { nowMs?: () => number } = {}) {
  const authorizer = privateKeyToAccount(generatePrivateKey())
  const { facilitator, settled } = recordingFacilitator()
  const scheme = new AuthCaptureServerScheme({ receiverAuthorizer: authorizer, facilitator, now: options.nowMs })
  const server = new x402ResourceServer(facilitator).register(sandboxNetwork, scheme)
  await server.initialize()
  const buyer = privateKeyToAccount(generatePrivateKey())
  const client = new x402Client().register(sandboxNetwork, new AuthCaptureEvmScheme(buyer))
  client.setSpendControls({ allowedAssets: [{ network: sandboxNetwork, asset: usdcAddress }] })
  const requirementsFor = async (extra: Record<string, unknown> = {}) =>
    (
      await server.buildPaymentRequirements({
        scheme: 'auth-capture',
        network: sandboxNetwork,
        payTo,
        price: '$0.01',
        maxTimeoutSeconds: 300,
        extra,
      })
    )[0]!
  const pay = (requirements: PaymentRequirements) =>
    client.createPaymentPayload({ x402Version: 2, resource: { url: 'http://seller.test/' }, accepts: [requirements] })
  return { authorizer, scheme, server, settled, buyer, requirementsFor, pay }
}

describe('the requirements it writes', () => {
  test('a "$0.01" escrow accept: the Sandbox USDC and its domain, the facilitator operator and escrow, its authorizer, sync, zero fees, grid deadlines', async () => {
    const now = Date.UTC(2026, 11, 7, 22, 0, 30)
    const { authorizer, requirementsFor } = await setUp({ nowMs: () => now })
    const requirements = await requirementsFor({ captureDeadlineSeconds: 3600, refundDeadlineSeconds: 7200 })
    const nowSeconds = now / 1000
    expect(requirements).toEqual({
      scheme: 'auth-capture',
      network: sandboxNetwork,
      amount: '10000',
      asset: usdcAddress,
      payTo,
      maxTimeoutSeconds: 300,
      extra: {
        name: 'USDC',
        version: '2',
        authCaptureEscrow: offeredEscrow,
        captureAuthorizer: operator,
        receiverAuthorizer: authorizer.address,
        operatorType: 'delegated',
        paymentFlow: 'escrow',
        captureMode: 'sync',
        captureDeadline: nowSeconds - 30 + 3600 + 60,
        refundDeadline: nowSeconds - 30 + 7200 + 60,
        minFeeBps: 0,
        maxFeeBps: 0,
        feeRecipient: zeroAddress,
      },
    })
  })

  test('defaults: a day to capture, a week to refund; deferred and the authorization flow as asked', async () => {
    const now = Date.UTC(2026, 11, 7, 22, 0, 0)
    const { requirementsFor } = await setUp({ nowMs: () => now })
    const plain = await requirementsFor()
    expect(plain.extra).toMatchObject({ captureDeadline: now / 1000 + 86_400, refundDeadline: now / 1000 + 604_800 })
    expect((await requirementsFor({ captureMode: 'deferred' })).extra).toMatchObject({ captureMode: 'deferred' })
    const charge = await requirementsFor({ paymentFlow: 'authorization' })
    expect(charge.extra).toMatchObject({ paymentFlow: 'authorization' })
    expect(charge.extra).not.toHaveProperty('captureMode')
  })

  test('refuses what the scheme writes or svc does not serve, and windows too short for the payment', async () => {
    const { requirementsFor } = await setUp()
    await expect(requirementsFor({ captureDeadline: 1_900_000_000 })).rejects.toThrow(/captureDeadlineSeconds/)
    await expect(requirementsFor({ autoCapture: true })).rejects.toThrow(/paymentFlow/)
    await expect(requirementsFor({ operatorType: 'custom' })).rejects.toThrow(/delegated/)
    await expect(requirementsFor({ receiverAuthorizer: operator })).rejects.toThrow(/leave it out/)
    await expect(requirementsFor({ captureDeadlineSeconds: 400 })).rejects.toThrow(
      /from 420 \(maxTimeoutSeconds \+ 120\)/,
    )
    await expect(requirementsFor({ captureDeadlineSeconds: 3600, refundDeadlineSeconds: 600 })).rejects.toThrow(
      /refundDeadlineSeconds/,
    )
    await expect(requirementsFor({ captureMode: 'later' })).rejects.toThrow(/sync/)
  })
})

describe('the deadline grid', () => {
  test('deadlines are the end of the 60 s step now + window falls in; this step or the previous one fit', () => {
    expect(gridDeadline(1_000_000_000, 3600)).toBe(1_000_003_620)
    expect(gridDeadline(1_000_000_020, 3600)).toBe(1_000_003_620)
    expect(gridDeadline(1_000_000_021, 3600)).toBe(1_000_003_680)
    expect(acceptedDeadlineFits(1_000_003_620, 1_000_003_620)).toBe(true)
    expect(acceptedDeadlineFits(1_000_003_620, 1_000_003_680)).toBe(true)
    expect(acceptedDeadlineFits(1_000_003_560, 1_000_003_680)).toBe(false)
    expect(acceptedDeadlineFits(1_000_003_680, 1_000_003_620)).toBe(false)
  })

  test('a payment signed for the previous step matches the new requirements and settles with its own deadlines; an older one is refused', async () => {
    let now = Date.UTC(2026, 11, 7, 22, 0, 10)
    const { server, settled, pay, requirementsFor } = await setUp({ nowMs: () => now })
    const offered = await requirementsFor({ captureMode: 'deferred' })
    const payment = await pay(offered)
    now += 60_000
    const live = await requirementsFor({ captureMode: 'deferred' })
    expect((live.extra as { captureDeadline: number }).captureDeadline).toBe(
      (offered.extra as { captureDeadline: number }).captureDeadline + 60,
    )
    expect(server.findMatchingRequirements([live], payment)).toBe(live)
    const result = await server.settlePayment(payment, live, {}, undefined, undefined, 'before-handler')
    expect(result.success).toBe(true)
    expect(settled).toHaveLength(1)
    expect(settled[0]!.requirements.extra).toMatchObject({
      captureDeadline: (offered.extra as { captureDeadline: number }).captureDeadline,
      refundDeadline: (offered.extra as { refundDeadline: number }).refundDeadline,
    })
    now += 60_000
    const later = await requirementsFor({ captureMode: 'deferred' })
    await expect(
      server.settlePayment(payment, later, {}, undefined, undefined, 'before-handler'),
    ).rejects.toMatchObject({
      errorReason: 'invalid_auth_capture_evm_extra',
      errorMessage: expect.stringContaining('from an old 402'),
    })
    expect(settled).toHaveLength(1)
  })
})

/** The capture/void fields core added to the client's payload, and the payment's id. */
function lifecycleOf(sent: { payload: PaymentPayload }) {
  const payload = sent.payload.payload as Record<string, unknown>
  const info = payload.paymentInfo as PaymentInfo
  return { payload, info, hash: paymentInfoHash(sandboxChainId, packageDeployment.escrow, info) }
}

describe('what it settles in each phase', () => {
  test('sync, handler 200: the collect as signed before; a capture of all of it after, signed by the receiver authorizer', async () => {
    const { authorizer, server, settled, pay, requirementsFor, scheme, buyer } = await setUp()
    const requirements = await requirementsFor()
    const payment = await pay(requirements)
    await server.settlePayment(payment, requirements, {}, undefined, undefined, 'before-handler')
    expect(settled[0]!.payload.payload).toEqual(payment.payload)
    const [record] = await scheme.payments()
    expect(record).toMatchObject({ capturable: '10000', refundable: '0', captureMode: 'sync', flow: 'escrow' })
    await server.settlePayment(payment, requirements, {}, undefined, undefined, 'after-handler')
    const { payload, info, hash } = lifecycleOf(settled[1]!)
    expect(hash).toBe(record!.paymentInfoHash)
    expect(info).toMatchObject({ operator, payer: buyer.address, receiver: payTo, maxAmount: '10000' })
    // Additive: the client's fields stay (saltNonce among them), the capture's are added.
    expect(payload).toMatchObject({
      ...payment.payload,
      type: 'capture',
      amount: '10000',
      feeAmount: '0',
      feeReceiver: zeroAddress,
      expectedCapturableAmount: '10000',
      expectedRefundableAmount: '0',
    })
    expect(payload).not.toHaveProperty('voidAuthorizerSignature')
    const signed = captureTypedData(
      { chainId: sandboxChainId, captureAuthorizer: operator },
      { paymentInfoHash: hash, ...(payload as unknown as CapturePayload) },
    )
    expect(await recoverTypedDataAddress({ ...signed, signature: payload.authorizerSignature as Hex })).toBe(
      authorizer.address,
    )
    expect(settled[1]!.requirements.amount).toBe('10000')
    expect((await scheme.payments())[0]).toMatchObject({ capturable: '0', refundable: '10000' })
  })

  test('sync with a settlement override: a capture of that amount with the void of the rest, both signed, against the signed requirements', async () => {
    const { authorizer, server, settled, pay, requirementsFor } = await setUp()
    const requirements = await requirementsFor()
    const payment = await pay(requirements)
    await server.settlePayment(payment, requirements, {}, undefined, undefined, 'before-handler')
    await server.settlePayment(payment, requirements, {}, undefined, { amount: '6000' }, 'after-handler')
    const { payload, hash } = lifecycleOf(settled[1]!)
    expect(payload).toMatchObject({ type: 'capture', amount: '6000', expectedCapturableAmount: '10000' })
    // Settled against the requirements the payment was signed for: the PaymentInfo's maxAmount is what was authorized.
    expect(settled[1]!.requirements.amount).toBe('10000')
    const scope = { chainId: sandboxChainId, captureAuthorizer: operator }
    expect(
      await recoverTypedDataAddress({
        ...voidTypedData(scope, { paymentInfoHash: hash }),
        signature: payload.voidAuthorizerSignature as Hex,
      }),
    ).toBe(authorizer.address)
  })

  test('sync, handler 404: the cancel settles a void signed by the receiver authorizer', async () => {
    const { authorizer, server, settled, pay, requirementsFor, scheme } = await setUp()
    const requirements = await requirementsFor()
    const payment = await pay(requirements)
    await server.settlePayment(payment, requirements, {}, undefined, undefined, 'before-handler')
    const cancel = server.createPaymentCancellationDispatcher(payment, requirements, {}, undefined, ['before-handler'])
    expect(await cancel.cancel({ reason: 'handler_failed', responseStatus: 404 })).toMatchObject({ success: true })
    expect(settled).toHaveLength(2)
    const { payload, hash } = lifecycleOf(settled[1]!)
    expect(payload).toMatchObject({ type: 'void' })
    expect(
      await recoverTypedDataAddress({
        ...voidTypedData({ chainId: sandboxChainId, captureAuthorizer: operator }, {
          paymentInfoHash: hash,
        } satisfies Pick<VoidPayload, never> & { paymentInfoHash: Hex }),
        signature: payload.authorizerSignature as Hex,
      }),
    ).toBe(authorizer.address)
    expect((await scheme.payments())[0]).toMatchObject({ capturable: '0', refundable: '0' })
  })

  test('deferred: nothing is settled after the handler (the answer is the authorize receipt); the seller captures later', async () => {
    const { server, settled, pay, requirementsFor, scheme } = await setUp()
    const requirements = await requirementsFor({ captureMode: 'deferred' })
    const payment = await pay(requirements)
    const authorize = await server.settlePayment(payment, requirements, {}, undefined, undefined, 'before-handler')
    const after = await server.settlePayment(payment, requirements, {}, undefined, undefined, 'after-handler')
    expect(after).toEqual(authorize)
    expect(settled).toHaveLength(1)
    const [record] = await scheme.payments()
    expect(record).toMatchObject({ capturable: '10000', refundable: '0', captureMode: 'deferred' })
    await scheme.capture(record!.paymentInfoHash, { amount: '4000' })
    expect(settled[1]!.payload.payload).toMatchObject({
      type: 'capture',
      amount: '4000',
      expectedCapturableAmount: '10000',
      expectedRefundableAmount: '0',
    })
    expect(settled[1]!.requirements).toEqual(record!.requirements)
    await scheme.void(record!.paymentInfoHash)
    expect(settled[2]!.payload.payload).toMatchObject({ type: 'void' })
    await scheme.refund(record!.paymentInfoHash, { amount: '1000' })
    expect(settled[3]!.payload.payload).toMatchObject({
      type: 'refund',
      amount: '1000',
      expectedCapturableAmount: '0',
      expectedRefundableAmount: '4000',
    })
    expect((await scheme.payments())[0]).toMatchObject({ capturable: '0', refundable: '3000' })
  })

  test('the authorization flow: after the handler, the client payload completed into a charge', async () => {
    const { server, settled, pay, requirementsFor } = await setUp()
    const requirements = await requirementsFor({ paymentFlow: 'authorization' })
    const payment = await pay(requirements)
    expect(server.getPaymentFlow(payment, requirements)).toBe('authorization')
    await server.settlePayment(payment, requirements, {}, undefined, { amount: '7000' }, 'after-handler')
    expect(settled).toHaveLength(1)
    expect(settled[0]!.payload.payload).toMatchObject({
      ...payment.payload,
      amount: '7000',
      feeAmount: '0',
      feeReceiver: zeroAddress,
      authorizerSignature: expect.stringMatching(/^0x[0-9a-f]{130}$/),
    })
    expect(settled[0]!.requirements.amount).toBe('10000')
  })
})
