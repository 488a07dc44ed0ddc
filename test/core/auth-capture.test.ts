/**
 * core/auth-capture/ against the official client (`@x402/evm/auth-capture/client`) and viem, without a chain: the
 * payloads the client signs (EIP-3009 and Permit2, unbound and bound salt) reopen to their wire nonce with core's
 * hashes; the client's signatures verify over core's typed data; the authorizer's typed data hashes as EIP-712 says
 * from the spec's type strings; extra is normalised and refused with the spec's reasons; the lifecycle payloads core
 * builds read back and reopen; and an auth-capture accept follows the control plane's rules.
 */
import { resolveAuthCaptureDeployment } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import {
  type Address,
  concat,
  encodeAbiParameters,
  type Hex,
  hashTypedData,
  keccak256,
  recoverTypedDataAddress,
  toHex,
  verifyTypedData,
  zeroAddress,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import {
  candidateDeployments,
  offeredEscrow,
  packageDeployment,
  servedDeployments,
  specDeployment,
  v1_0Escrow,
} from '../../core/auth-capture/deployments.js'
import { feeBounds, normalizeExtra } from '../../core/auth-capture/extra.js'
import { boundSalt, paymentInfoHash, paymentInfoTypehash, signatureNonce } from '../../core/auth-capture/hashes.js'
import { buildCapture, buildRefund, buildVoid, completeCharge } from '../../core/auth-capture/lifecycle-payloads.js'
import { checkCollectTimes, reopenCollect, reopenLifecycle } from '../../core/auth-capture/reopen.js'
import { type ReadPayload, readPayload } from '../../core/auth-capture/read-payload.js'
import {
  captureTypedData,
  chargeTypedData,
  permitTransferFromTypedData,
  receiveWithAuthorizationTypedData,
  refundTypedData,
  voidTypedData,
} from '../../core/auth-capture/typed-data.js'
import type { AuthCaptureExtra, CollectPayload, LifecyclePayload } from '../../core/auth-capture/types.js'
import { acceptSchema } from '../../core/inputs/endpoint.js'
import { sandboxChainId, sandboxNetwork, usdcAddress } from '../../core/sandbox-usdc.js'

const buyer = privateKeyToAccount(`0x${'11'.repeat(32)}`)
const authorizer = privateKeyToAccount(`0x${'22'.repeat(32)}`)
const stranger = privateKeyToAccount(`0x${'33'.repeat(32)}`)
const operator: Address = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const payTo: Address = '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
const now = Math.floor(Date.now() / 1000)

const requirementsWith = (extra: Record<string, unknown>) => ({
  scheme: 'auth-capture',
  network: sandboxNetwork,
  amount: '10000',
  asset: usdcAddress,
  payTo,
  maxTimeoutSeconds: 60,
  extra: {
    name: 'USDC',
    version: '2',
    authCaptureEscrow: offeredEscrow,
    captureAuthorizer: operator,
    captureDeadline: now + 86_400,
    refundDeadline: now + 604_800,
    minFeeBps: 0,
    maxFeeBps: 0,
    feeRecipient: zeroAddress,
    captureMode: 'deferred',
    ...extra,
  },
})

/** The official client's payload for these requirements. */
async function pay(requirements: ReturnType<typeof requirementsWith>) {
  const { payload } = await new AuthCaptureEvmScheme(buyer).createPaymentPayload(2, requirements)
  return payload as Record<string, unknown>
}

/** extra normalised, the payload read and reopened: what a facilitator does first. */
function reopen(requirements: ReturnType<typeof requirementsWith>, payload: unknown) {
  const normal = normalizeExtra(requirements.extra)
  if (!normal.ok) throw new Error(`${normal.reason}: ${normal.message}`)
  const read = readPayload(payload)
  if (!read.ok) return read
  if (read.kind === 'lifecycle') throw new Error('a collect was expected')
  return reopenCollect({
    chainId: sandboxChainId,
    requirements,
    extra: normal.extra,
    deployments: normal.deployments,
    read: read as Extract<ReadPayload, { kind: 'eip3009' | 'permit2' }>,
  })
}

describe('the deployments', () => {
  test("the package's v1.1 set is read from the installed @x402/evm; the spec's is served too; v1.0 is not", () => {
    const installed = resolveAuthCaptureDeployment()!
    expect(packageDeployment).toMatchObject({ version: 'v1.1', escrow: installed.escrow })
    expect(packageDeployment.eip3009Collector).toBe(installed.eip3009Collector)
    expect(offeredEscrow).toBe(installed.escrow)
    expect(specDeployment.escrow).toBe('0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB')
    expect(servedDeployments.map((deployment) => deployment.source)).toEqual(['package', 'spec'])
    expect(candidateDeployments(undefined)).toEqual(servedDeployments)
    expect(candidateDeployments(specDeployment.escrow.toLowerCase())).toEqual([specDeployment])
    expect(candidateDeployments(v1_0Escrow)).toEqual([])
    expect(candidateDeployments('0x0000000000000000000000000000000000000001')).toEqual([])
  })
})

describe("the official client's payloads reopen to their wire nonce with core's hashes", () => {
  const cases = [
    { name: 'EIP-3009, unbound salt', extra: {} },
    { name: 'EIP-3009, bound salt', extra: { receiverAuthorizer: authorizer.address, captureMode: 'sync' } },
    { name: 'Permit2, unbound salt', extra: { assetTransferMethod: 'permit2' } },
    { name: 'Permit2, bound salt', extra: { assetTransferMethod: 'permit2', receiverAuthorizer: authorizer.address } },
    {
      name: 'EIP-3009, bound, authorization flow',
      extra: { receiverAuthorizer: authorizer.address, paymentFlow: 'authorization', captureMode: undefined },
    },
    { name: 'EIP-3009, the escrow left out', extra: { authCaptureEscrow: undefined } },
  ]
  test.each(cases)('$name', async ({ extra }) => {
    const requirements = requirementsWith(extra)
    const payload = await pay(requirements)
    const bound = 'receiverAuthorizer' in extra
    expect('saltNonce' in payload).toBe(bound)
    const reopened = reopen(requirements, payload)
    expect(reopened).toMatchObject({ ok: true, deployment: packageDeployment })
    if (!reopened.ok) return
    const permit2 = 'permit2Authorization' in payload
    const wire = permit2
      ? toHex(BigInt((payload.permit2Authorization as { nonce: string }).nonce), { size: 32 })
      : (payload.authorization as { nonce: Hex }).nonce
    expect(reopened.nonce).toBe(wire)
    expect(signatureNonce(sandboxChainId, packageDeployment.escrow, reopened.paymentInfo)).toBe(wire)
    expect(reopened.paymentInfo).toMatchObject({ payer: buyer.address, receiver: payTo, maxAmount: '10000' })
    if (bound)
      expect(boundSalt(authorizer.address, zeroAddress, payload.saltNonce as Hex)).toBe(reopened.paymentInfo.salt)
    // The escrow's id: getHash = keccak(chainId, escrow, keccak(TYPEHASH, paymentInfo)), with the real payer.
    expect(reopened.paymentInfoHash).toBe(
      paymentInfoHash(sandboxChainId, packageDeployment.escrow, reopened.paymentInfo),
    )
    expect(reopened.paymentInfoHash).not.toBe(wire)
    // The client's signature verifies over core's typed data of its authorization.
    const typedData = permit2
      ? permitTransferFromTypedData(sandboxChainId, payload.permit2Authorization as never)
      : receiveWithAuthorizationTypedData(
          { chainId: sandboxChainId, address: usdcAddress, name: 'USDC', version: '2' },
          payload.authorization as never,
        )
    expect(await recoverTypedDataAddress({ ...typedData, signature: payload.signature as Hex } as never)).toBe(
      buyer.address,
    )
  })

  test('a changed salt, amount, collector, method or a dropped saltNonce is refused with its reason', async () => {
    const unbound = requirementsWith({})
    const paid = await pay(unbound)
    const authorization = paid.authorization as Record<string, unknown>
    const otherSalt = toHex(1n, { size: 32 })
    expect(reopen(unbound, { ...paid, salt: otherSalt })).toMatchObject({
      ok: false,
      reason: 'invalid_auth_capture_evm_nonce_mismatch',
    })
    expect(reopen(unbound, { ...paid, authorization: { ...authorization, value: '9999' } })).toMatchObject({
      reason: 'invalid_auth_capture_evm_amount_mismatch',
    })
    expect(
      reopen(unbound, { ...paid, authorization: { ...authorization, to: specDeployment.eip3009Collector } }),
    ).toMatchObject({ reason: 'invalid_auth_capture_evm_token_collector_mismatch' })
    expect(reopen(requirementsWith({ assetTransferMethod: 'permit2' }), paid)).toMatchObject({
      reason: 'invalid_auth_capture_evm_payload_method_mismatch',
    })
    // Signed for the package's set, presented under the spec's escrow: its collector is not that set's.
    expect(reopen(requirementsWith({ authCaptureEscrow: specDeployment.escrow }), paid)).toMatchObject({
      reason: 'invalid_auth_capture_evm_token_collector_mismatch',
    })
    const bound = requirementsWith({ receiverAuthorizer: authorizer.address })
    const paidBound = await pay(bound)
    const { saltNonce, ...withoutNonce } = paidBound
    expect(reopen(bound, withoutNonce)).toMatchObject({ reason: 'invalid_auth_capture_evm_payload_format' })
    expect(reopen(unbound, { ...paid, saltNonce })).toMatchObject({ reason: 'invalid_auth_capture_evm_payload_format' })
    expect(reopen(bound, { ...paidBound, saltNonce: otherSalt })).toMatchObject({
      reason: 'invalid_auth_capture_evm_salt_binding_mismatch',
    })
    // Paid unbound, presented as bound (a scheme-v1.0 client's payload under an authorizer): no probing.
    expect(reopen(bound, paid)).toMatchObject({ reason: 'invalid_auth_capture_evm_payload_format' })
  })

  test('a payment the client signs for the v1.0 escrow is refused before anything else', async () => {
    const v1_0 = requirementsWith({ authCaptureEscrow: v1_0Escrow })
    const paid = await pay(v1_0)
    expect((paid.authorization as { to: string }).to).toBe(resolveAuthCaptureDeployment(v1_0Escrow)!.eip3009Collector)
    expect(normalizeExtra(v1_0.extra)).toMatchObject({
      ok: false,
      reason: 'invalid_auth_capture_evm_extra',
      message: expect.stringContaining('the v1.0 escrow'),
    })
  })

  test('the client throws on the spec escrow (§0.1 of the plan); a payload for it is built the same way', async () => {
    await expect(pay(requirementsWith({ authCaptureEscrow: specDeployment.escrow }))).rejects.toThrow(
      'Invalid authCaptureEscrow',
    )
  })
})

describe('the EIP-712 digests are EIP-712 over the spec type strings', () => {
  const scope = { chainId: sandboxChainId, captureAuthorizer: operator }
  const id = keccak256(toHex('a payment'))
  /** hashStruct by hand: keccak(typehash ‖ encoded fields), the fields all static. */
  const digest = (type: string, fields: { type: string; value: unknown }[]) => {
    const domainSeparator = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, { type: 'bytes32' }, { type: 'bytes32' }, { type: 'uint256' }, { type: 'address' }],
        [
          keccak256(toHex('EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)')),
          keccak256(toHex('x402 Auth Capture Operator')),
          keccak256(toHex('1')),
          BigInt(sandboxChainId),
          operator,
        ],
      ),
    )
    const struct = keccak256(
      encodeAbiParameters(
        [{ type: 'bytes32' }, ...fields.map((field) => ({ type: field.type }))],
        [keccak256(toHex(type)), ...fields.map((field) => field.value)],
      ),
    )
    return keccak256(concat(['0x1901', domainSeparator, struct]))
  }

  test('Capture, Void, Refund and Charge (v1.1: feeAmount)', () => {
    expect(
      hashTypedData(
        captureTypedData(scope, {
          paymentInfoHash: id,
          amount: 6000n,
          feeAmount: 0n,
          feeReceiver: payTo,
          expectedCapturableAmount: 10000n,
          expectedRefundableAmount: 0n,
        }),
      ),
    ).toBe(
      digest(
        'Capture(bytes32 paymentInfoHash,uint256 amount,uint256 feeAmount,address feeReceiver,uint256 expectedCapturableAmount,uint256 expectedRefundableAmount)',
        [
          { type: 'bytes32', value: id },
          { type: 'uint256', value: 6000n },
          { type: 'uint256', value: 0n },
          { type: 'address', value: payTo },
          { type: 'uint256', value: 10000n },
          { type: 'uint256', value: 0n },
        ],
      ),
    )
    expect(hashTypedData(voidTypedData(scope, { paymentInfoHash: id }))).toBe(
      digest('Void(bytes32 paymentInfoHash)', [{ type: 'bytes32', value: id }]),
    )
    const refund = refundTypedData(scope, {
      paymentInfoHash: id,
      amount: '2000',
      tokenCollector: packageDeployment.operatorRefundCollector,
      expectedCapturableAmount: '0',
      expectedRefundableAmount: '6000',
    })
    expect(hashTypedData(refund)).toBe(
      digest(
        'Refund(bytes32 paymentInfoHash,uint256 amount,address tokenCollector,uint256 expectedCapturableAmount,uint256 expectedRefundableAmount)',
        [
          { type: 'bytes32', value: id },
          { type: 'uint256', value: 2000n },
          { type: 'address', value: packageDeployment.operatorRefundCollector },
          { type: 'uint256', value: 0n },
          { type: 'uint256', value: 6000n },
        ],
      ),
    )
    const dataHash = keccak256('0x1234')
    expect(
      hashTypedData(
        chargeTypedData(scope, {
          paymentInfoHash: id,
          amount: 10000n,
          tokenCollector: packageDeployment.eip3009Collector,
          collectorDataHash: dataHash,
          feeAmount: 0n,
          feeReceiver: payTo,
        }),
      ),
    ).toBe(
      digest(
        'Charge(bytes32 paymentInfoHash,uint256 amount,address tokenCollector,bytes32 collectorDataHash,uint256 feeAmount,address feeReceiver)',
        [
          { type: 'bytes32', value: id },
          { type: 'uint256', value: 10000n },
          { type: 'address', value: packageDeployment.eip3009Collector },
          { type: 'bytes32', value: dataHash },
          { type: 'uint256', value: 0n },
          { type: 'address', value: payTo },
        ],
      ),
    )
    expect(paymentInfoTypehash).toBe(
      keccak256(
        toHex(
          'PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
        ),
      ),
    )
  })
})

describe('extra normalisation', () => {
  const base = requirementsWith({ receiverAuthorizer: authorizer.address }).extra

  test('absent addresses are zero, the flow escrow, the mode sync, the method eip3009; the escrow may be left out', () => {
    const { captureMode, authCaptureEscrow, ...rest } = base
    const normal = normalizeExtra({ ...rest, receiverAuthorizer: authorizer.address.toLowerCase() })
    expect(normal).toMatchObject({
      ok: true,
      deployments: servedDeployments,
      extra: {
        receiverAuthorizer: authorizer.address,
        policy: zeroAddress,
        operatorType: 'delegated',
        paymentFlow: 'escrow',
        captureMode: 'sync',
        assetTransferMethod: 'eip3009',
        authCaptureEscrow: undefined,
      } satisfies Partial<AuthCaptureExtra>,
    })
    expect(normalizeExtra({ ...base, paymentFlow: 'authorization', captureMode: undefined })).toMatchObject({
      ok: true,
      extra: { paymentFlow: 'authorization', captureMode: undefined },
    })
    expect(feeBounds(7500n, { minFeeBps: 100, maxFeeBps: 250 })).toEqual({ min: 75n, max: 187n })
  })

  test.each([
    [{ autoCapture: true }, 'unsupported_payment_flow'],
    [{ paymentFlow: 'upfront' }, 'unsupported_payment_flow'],
    [{ name: undefined }, 'extra'],
    [{ captureAuthorizer: 'svc' }, 'extra'],
    [{ captureDeadline: '1740758554' }, 'extra'],
    [{ maxFeeBps: 10_001 }, 'extra'],
    [{ minFeeBps: 200, maxFeeBps: 100, feeRecipient: payTo }, 'extra'],
    [{ maxFeeBps: 100 }, 'extra'],
    [{ authCaptureEscrow: '0xBdEA0D1bcC5966192B070Fdf62aB4EF5b4420cff' }, 'extra'],
    [{ authCaptureEscrow: '0x0000000000000000000000000000000000000001' }, 'extra'],
    [{ paymentFlow: 'authorization', captureMode: 'sync' }, 'extra'],
    [{ receiverAuthorizer: undefined, captureMode: 'sync' }, 'extra'],
    [{ receiverAuthorizer: undefined, captureMode: undefined }, 'extra'],
    [{ operatorType: 'custom' }, 'unsupported_operator_type'],
    [{ operatorType: 'policy' }, 'unsupported_operator_type'],
    [{ policy: payTo }, 'policy'],
    [{ assetTransferMethod: 'permit3' }, 'unsupported_asset_transfer_method'],
  ])('%o is refused: %s', (change, reason) => {
    expect(normalizeExtra({ ...base, ...change })).toMatchObject({
      ok: false,
      reason: `invalid_auth_capture_evm_${reason}`,
    })
  })
})

describe('the collect times (steps 7–8, svc clock)', () => {
  const extra = { captureDeadline: now + 3600, refundDeadline: now + 7200 }
  const times = { now, maxTimeoutSeconds: 60, extra, validAfter: 0, validBefore: now + 60 }
  test.each([
    [{}, undefined],
    [{ extra: { ...extra, refundDeadline: now + 60 } }, 'deadline_ordering'],
    [{ extra: { ...extra, captureDeadline: now + 6 } }, 'capture_deadline_expired'],
    [{ maxTimeoutSeconds: 7200 }, 'deadline_ordering'],
    [{ validBefore: now + 3601 }, 'deadline_ordering'],
    [{ validBefore: now + 6 }, 'authorization_expired'],
    [{ validAfter: now + 1 }, 'authorization_not_yet_valid'],
  ])('%o: %s', (change, reason) => {
    const judged = checkCollectTimes({ ...times, ...change })
    expect(judged.ok ? undefined : judged.reason).toBe(reason && `invalid_auth_capture_evm_${reason}`)
  })
})

describe('lifecycle payloads and the charge completion', () => {
  test('capture (with the void of the rest), void and refund are signed by the authorizer, read back and reopen', async () => {
    const requirements = requirementsWith({ receiverAuthorizer: authorizer.address })
    const paid = await pay(requirements)
    const collected = reopen(requirements, paid)
    if (!collected.ok) throw new Error(collected.message)
    const target = {
      chainId: sandboxChainId,
      deployment: collected.deployment,
      paymentInfo: collected.paymentInfo,
      saltNonce: paid.saltNonce as Hex,
    }
    const capture = await buildCapture(
      target,
      { amount: 6000n, expectedCapturableAmount: 10000n, expectedRefundableAmount: 0n, voidRest: true },
      authorizer,
    )
    expect(capture).toMatchObject({ type: 'capture', amount: '6000', feeAmount: '0', feeReceiver: zeroAddress })
    const scope = { chainId: sandboxChainId, captureAuthorizer: operator }
    const id = collected.paymentInfoHash
    expect(
      await verifyTypedData({
        address: authorizer.address,
        ...captureTypedData(scope, { paymentInfoHash: id, ...capture }),
        signature: capture.authorizerSignature,
      }),
    ).toBe(true)
    expect(
      await verifyTypedData({
        address: authorizer.address,
        ...voidTypedData(scope, { paymentInfoHash: id }),
        signature: capture.voidAuthorizerSignature!,
      }),
    ).toBe(true)
    const voided = await buildVoid(target, authorizer)
    const refund = await buildRefund(
      target,
      { amount: 2000n, expectedCapturableAmount: 0n, expectedRefundableAmount: 6000n },
      authorizer,
    )
    expect(
      await verifyTypedData({
        address: authorizer.address,
        ...refundTypedData(scope, {
          paymentInfoHash: id,
          tokenCollector: packageDeployment.operatorRefundCollector,
          ...refund,
        }),
        signature: refund.authorizerSignature,
      }),
    ).toBe(true)
    const normal = normalizeExtra(requirements.extra)
    if (!normal.ok) throw new Error(normal.message)
    for (const payload of [capture, voided, refund]) {
      const read = readPayload(JSON.parse(JSON.stringify(payload)))
      expect(read).toMatchObject({ ok: true, kind: 'lifecycle' })
      const reopened = reopenLifecycle({
        chainId: sandboxChainId,
        requirements,
        extra: normal.extra,
        deployments: normal.deployments,
        payload: payload as LifecyclePayload,
      })
      expect(reopened).toMatchObject({ ok: true })
      if (reopened.ok) expect(reopened.candidates[0]).toEqual({ deployment: packageDeployment, paymentInfoHash: id })
    }
    const lifecycle = (payload: LifecyclePayload) =>
      reopenLifecycle({
        chainId: sandboxChainId,
        requirements,
        extra: normal.extra,
        deployments: normal.deployments,
        payload,
      })
    expect(lifecycle({ ...voided, paymentInfo: { ...voided.paymentInfo, operator: payTo } })).toMatchObject({
      reason: 'invalid_auth_capture_evm_operator_mismatch',
    })
    expect(lifecycle({ ...voided, saltNonce: toHex(5n, { size: 32 }) })).toMatchObject({
      reason: 'invalid_auth_capture_evm_salt_binding_mismatch',
    })
    expect(lifecycle({ ...voided, paymentInfo: { ...voided.paymentInfo, maxAmount: '20000' } })).toMatchObject({
      reason: 'invalid_auth_capture_evm_amount_mismatch',
    })
    // Without a receiver authorizer nothing is relayed; a charge holds nothing to capture or void.
    const deferredUnbound = normalizeExtra(requirementsWith({}).extra)
    if (!deferredUnbound.ok) throw new Error(deferredUnbound.message)
    expect(
      reopenLifecycle({ chainId: sandboxChainId, requirements, ...deferredUnbound, payload: refund }),
    ).toMatchObject({ reason: 'invalid_auth_capture_evm_lifecycle_not_relayed' })
    const charged = normalizeExtra({ ...requirements.extra, paymentFlow: 'authorization', captureMode: undefined })
    if (!charged.ok) throw new Error(charged.message)
    expect(reopenLifecycle({ chainId: sandboxChainId, requirements, ...charged, payload: voided })).toMatchObject({
      reason: 'invalid_auth_capture_evm_payload_type',
    })
    expect(reopenLifecycle({ chainId: sandboxChainId, requirements, ...charged, payload: refund })).toMatchObject({
      ok: true,
    })
    expect(readPayload({ ...refund, voidAuthorizerSignature: capture.voidAuthorizerSignature })).toMatchObject({
      reason: 'invalid_auth_capture_evm_void_authorizer_signature',
    })
    expect(readPayload({ ...voided, type: 'reclaim' })).toMatchObject({
      reason: 'invalid_auth_capture_evm_payload_type',
    })
    expect(readPayload({ ...capture, feeBps: 0 })).toMatchObject({ reason: 'invalid_auth_capture_evm_payload_format' })
    // Signed by another key: the payload reads, the signature does not recover to the authorizer.
    const forged = await buildVoid(target, stranger)
    expect(
      await verifyTypedData({
        address: authorizer.address,
        ...voidTypedData(scope, { paymentInfoHash: id }),
        signature: forged.authorizerSignature,
      }),
    ).toBe(false)
  })

  test("a charge is completed with all four fields over the client's payload; a partial group is refused", async () => {
    const requirements = requirementsWith({
      receiverAuthorizer: authorizer.address,
      paymentFlow: 'authorization',
      captureMode: undefined,
    })
    const paid = await pay(requirements)
    const collected = reopen(requirements, paid)
    if (!collected.ok) throw new Error(collected.message)
    const completed = await completeCharge(
      {
        chainId: sandboxChainId,
        reopened: collected,
        method: 'eip3009',
        payload: paid as unknown as CollectPayload,
        amount: 7500n,
      },
      authorizer,
    )
    expect(completed).toMatchObject({ ...paid, amount: '7500', feeAmount: '0', feeReceiver: zeroAddress })
    expect(readPayload(completed)).toMatchObject({ ok: true, kind: 'eip3009' })
    expect(
      await verifyTypedData({
        address: authorizer.address,
        ...chargeTypedData(
          { chainId: sandboxChainId, captureAuthorizer: operator },
          {
            paymentInfoHash: collected.paymentInfoHash,
            amount: 7500n,
            tokenCollector: packageDeployment.eip3009Collector,
            collectorDataHash: keccak256(paid.signature as Hex),
            feeAmount: 0n,
            feeReceiver: zeroAddress,
          },
        ),
        signature: completed.authorizerSignature,
      }),
    ).toBe(true)
    // A charge without a receiver authorizer is refused before anything else.
    const unbound = requirementsWith({ paymentFlow: 'authorization', captureMode: undefined })
    expect(reopen(unbound, await pay(unbound))).toMatchObject({
      reason: 'invalid_auth_capture_evm_missing_receiver_authorizer',
    })
    const { authorizerSignature, ...partial } = completed
    expect(readPayload(partial)).toMatchObject({ reason: 'invalid_auth_capture_evm_payload_format' })
  })
})

describe('the control plane takes an auth-capture accept by its rules', () => {
  const accept = { scheme: 'auth-capture', network: sandboxNetwork, asset: usdcAddress, amount: '10000' }
  const problems = (extra?: Record<string, unknown>, more: Record<string, unknown> = {}) => {
    const parsed = acceptSchema.safeParse({ ...accept, ...more, extra })
    return parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
  }

  test('the defaults and every documented field are taken', () => {
    expect(problems()).toEqual([])
    expect(
      problems({
        paymentFlow: 'escrow',
        captureMode: 'deferred',
        captureDeadlineSeconds: 420,
        refundDeadlineSeconds: 420,
        minFeeBps: 50,
        maxFeeBps: 50,
        feeRecipient: payTo.toLowerCase(),
        assetTransferMethod: 'permit2',
        operatorType: 'delegated',
      }),
    ).toEqual([])
    expect(problems({ paymentFlow: 'authorization' })).toEqual([])
  })

  test.each([
    [{ paymentFlow: 'upfront' }, 'extra.paymentFlow: auth-capture collects before the upstream is called anyway'],
    [{ paymentFlow: 'later' }, 'extra.paymentFlow: must be one of escrow, authorization'],
    [{ captureMode: 'later' }, 'extra.captureMode: must be one of sync, deferred'],
    [{ paymentFlow: 'authorization', captureMode: 'sync' }, 'extra.captureMode: is for the escrow flow'],
    [{ captureDeadlineSeconds: 419 }, 'extra.captureDeadlineSeconds: must be an integer number of seconds between 420'],
    [{ captureDeadlineSeconds: 31_536_001 }, 'extra.captureDeadlineSeconds: must be an integer'],
    [{ captureDeadlineSeconds: 3600, refundDeadlineSeconds: 600 }, 'extra.refundDeadlineSeconds: must be at least'],
    [{ refundDeadlineSeconds: 60 }, 'extra.refundDeadlineSeconds: must be at least captureDeadlineSeconds (86400)'],
    [{ maxFeeBps: 10_001 }, 'extra.maxFeeBps: must be an integer number of basis points between 0 and 10000'],
    [{ minFeeBps: 20, maxFeeBps: 10, feeRecipient: payTo }, 'extra.minFeeBps: must not be above maxFeeBps (10)'],
    [{ maxFeeBps: 10 }, 'extra.feeRecipient: is required (a non-zero address) when maxFeeBps is above 0'],
    [{ feeRecipient: payTo }, 'extra.feeRecipient: takes nothing with maxFeeBps 0'],
    [{ feeRecipient: 'me' }, 'extra.feeRecipient: not an EVM address'],
    [{ captureAuthorizer: operator }, "extra.captureAuthorizer: is svc's facilitator's operator"],
    [{ receiverAuthorizer: operator }, 'extra.receiverAuthorizer: is the key svc keeps'],
    [{ authCaptureEscrow: offeredEscrow }, 'extra.authCaptureEscrow: is the escrow svc serves'],
    [{ policy: zeroAddress }, 'extra.policy: is for the "policy" operator type'],
    [{ operatorType: 'custom' }, 'extra.operatorType: must be "delegated"'],
    [{ captureDeadline: now + 3600 }, 'extra.captureDeadline: is written by the 402 from captureDeadlineSeconds'],
    [{ refundDeadline: now + 3600 }, 'extra.refundDeadline: is written by the 402 from refundDeadlineSeconds'],
    [{ autoCapture: true }, "extra.autoCapture: was removed in x402's auth-capture v1.1"],
    [{ gasSponsoring: 'eip2612GasSponsoring' }, 'extra.gasSponsoring: auth-capture payments are not gas-sponsored'],
    [{ assetTransferMethod: 'permit3' }, 'extra.assetTransferMethod: must be one of eip3009, permit2'],
  ])('%o: %s', (extra, message) => {
    expect(problems(extra).join('\n')).toContain(message)
  })

  test('the capture window follows max_timeout_seconds; escrow stays the auth-capture flow', () => {
    expect(problems({ captureDeadlineSeconds: 900 }, { max_timeout_seconds: 900 })).toEqual([
      'extra.captureDeadlineSeconds: must be an integer number of seconds between 1020 (max_timeout_seconds + 120) and 31536000',
    ])
    const exact = acceptSchema.safeParse({ ...accept, scheme: 'exact', extra: { paymentFlow: 'escrow' } })
    expect(exact.error?.issues[0]?.message).toContain('escrow is the auth-capture scheme')
  })
})
