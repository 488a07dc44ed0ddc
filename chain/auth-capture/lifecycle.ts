/**
 * The lifecycle of an escrow payment a resource server authors (x402 scheme_auth_capture_evm.md @3659f12,
 * "Lifecycle operations"): `capture` (with `voidAuthorizerSignature`: capture, then void the rest), `void`, `refund`,
 * each consented to by the receiver authorizer (EIP-712, the operator's domain), judged against the escrow's
 * `paymentState` and relayed by the operator. The state is read in the operator's turn at /settle, so two
 * lifecycle payloads of one payment never both pass on the same state (the single-use check is exact for what svc
 * relays). A refund is funded by the receiver's allowance to the operator (escrow-plan §1.6).
 */
import type { PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { type Address, encodeFunctionData, erc20Abi, getAddress, type Hex, maxUint256 } from 'viem'
import type { AuthCaptureDeployment } from '../../core/auth-capture/deployments.js'
import { reopenLifecycle, timeFloorSeconds } from '../../core/auth-capture/reopen.js'
import { captureTypedData, refundTypedData, voidTypedData } from '../../core/auth-capture/typed-data.js'
import type { Judged, LifecyclePayload, PaymentState } from '../../core/auth-capture/types.js'
import type { EscrowActionProgress } from './actions.js'
import { checkFee, paymentInfoOnChain } from './collect.js'
import {
  type AuthCaptureContext,
  checkSignature,
  type EscrowCall,
  type Judging,
  refuse,
  sendEscrowCall,
  sendFromOperator,
  settleRefusal,
  simulateEscrowCall,
  tokenAllowance,
  tokenBalance,
} from './context.js'
import { readPaymentState } from './on-chain.js'

/** The escrow's expiries are uint48. */
const maxUint48 = 2 ** 48 - 1

type LifecycleRead = { kind: 'lifecycle'; payload: LifecyclePayload }

type JudgedLifecycle = { deployment: AuthCaptureDeployment; paymentInfoHash: Hex; state: PaymentState }

/**
 * Reopened (operator, salt binding, the requirements' fields), the payment found on the escrow (both served sets
 * when extra omits it: the one that collected it), the receiver authorizer's signature(s), the amounts, the
 * deadlines by svc's clock, the signed expectations against `paymentState`, then what the state allows.
 */
async function judgeLifecycle(
  context: AuthCaptureContext,
  judging: Judging & { read: LifecycleRead },
  requirements: PaymentRequirements,
): Promise<Judged<JudgedLifecycle>> {
  const { extra, chainId } = judging
  const payload = judging.read.payload
  if (payload.paymentInfo.preApprovalExpiry > maxUint48)
    return refuse('payload_format', 'paymentInfo.preApprovalExpiry must be unix seconds (uint48)')
  const reopened = reopenLifecycle({ chainId, requirements, extra, deployments: judging.deployments, payload })
  if (!reopened.ok) return reopened
  // One escrow served (svc's case): the capture's or void's simulation is asked beside the payment's state, not after
  // it (its answer is used only when every check below passes).
  const only = reopened.candidates.length === 1 ? reopened.candidates[0]! : undefined
  const simulated =
    only && payload.type !== 'refund' ? simulateEscrowCall(context, lifecycleCall(only.deployment, payload)) : undefined
  let found: (JudgedLifecycle & { state: PaymentState }) | undefined
  for (const candidate of reopened.candidates) {
    // A served set without its contracts on this chain holds nothing.
    const state = await readPaymentState(
      context.chain.client,
      candidate.deployment.escrow,
      candidate.paymentInfoHash,
    ).catch(() => ({ hasCollectedPayment: false, capturableAmount: 0n, refundableAmount: 0n }))
    found ??= { ...candidate, state }
    if (state.hasCollectedPayment) {
      found = { ...candidate, state }
      break
    }
  }
  const { deployment, paymentInfoHash, state } = found!
  const scope = { chainId, captureAuthorizer: extra.captureAuthorizer }
  const info = payload.paymentInfo
  const now = context.clock.nowSeconds()
  const consent = (typedData: unknown, signature: Hex, refusal: { refusedAs: string; what: string }) =>
    checkSignature(context, { signer: extra.receiverAuthorizer, typedData: typedData as never, signature, ...refusal })
  if (payload.authorizerSignature === undefined)
    return refuse('authorizer_signature', `a ${payload.type} needs the receiver authorizer's authorizerSignature`)
  if (payload.type === 'capture') {
    const signed = await consent(
      captureTypedData(scope, { paymentInfoHash, ...payload }),
      payload.authorizerSignature,
      { refusedAs: 'authorizer_signature', what: 'authorizerSignature' },
    )
    if (!signed.ok) return signed
    if (payload.voidAuthorizerSignature !== undefined) {
      const voidSigned = await consent(voidTypedData(scope, { paymentInfoHash }), payload.voidAuthorizerSignature, {
        refusedAs: 'void_authorizer_signature',
        what: 'voidAuthorizerSignature',
      })
      if (!voidSigned.ok) return voidSigned
    }
    const amount = BigInt(payload.amount)
    if (amount === 0n) return refuse('amount_mismatch', 'a capture of 0 captures nothing')
    const fee = checkFee({
      amount,
      feeAmount: BigInt(payload.feeAmount),
      feeReceiver: getAddress(payload.feeReceiver),
      bounds: extra,
      signedFeeReceiver: info.feeReceiver,
    })
    if (fee) return { ok: false, ...fee }
    if (info.authorizationExpiry <= now + timeFloorSeconds)
      return refuse(
        'capture_deadline_expired',
        `the capture deadline ${info.authorizationExpiry} is not after now + 6 s (${now}): the payer may reclaim the hold`,
      )
    const expectations = checkExpectations(payload, state)
    if (expectations) return expectations
    if (state.capturableAmount === 0n)
      return refuse('zero_authorization', 'nothing is held for this payment (voided, reclaimed, or captured in full)')
    if (amount > state.capturableAmount)
      return refuse(
        'insufficient_authorization',
        `the capture of ${amount} is above the ${state.capturableAmount} held`,
      )
    if (payload.voidAuthorizerSignature !== undefined && amount === state.capturableAmount)
      return refuse(
        'void_remainder_full_capture',
        'voidAuthorizerSignature with a capture of everything held: there is no rest to void',
      )
  } else if (payload.type === 'void') {
    const signed = await consent(voidTypedData(scope, { paymentInfoHash }), payload.authorizerSignature, {
      refusedAs: 'authorizer_signature',
      what: 'authorizerSignature',
    })
    if (!signed.ok) return signed
    if (state.capturableAmount === 0n)
      return refuse('zero_authorization', 'nothing is held for this payment (voided, reclaimed, or captured in full)')
  } else {
    const signed = await consent(
      refundTypedData(scope, { paymentInfoHash, tokenCollector: deployment.operatorRefundCollector, ...payload }),
      payload.authorizerSignature,
      { refusedAs: 'authorizer_signature', what: 'authorizerSignature' },
    )
    if (!signed.ok) return signed
    const amount = BigInt(payload.amount)
    if (amount === 0n) return refuse('amount_mismatch', 'a refund of 0 refunds nothing')
    if (info.refundExpiry <= now + timeFloorSeconds)
      return refuse(
        'refund_deadline_expired',
        `the refund deadline ${info.refundExpiry} is not after now + 6 s (${now})`,
      )
    const expectations = checkExpectations(payload, state)
    if (expectations) return expectations
    if (amount > state.refundableAmount)
      return refuse('refund_exceeds_capture', `the refund of ${amount} is above the ${state.refundableAmount} captured`)
    const funding = await checkFunding(context, info.receiver, info.token, amount)
    if (funding) return funding
  }
  if (payload.type !== 'refund') {
    const reverted = await (simulated ?? simulateEscrowCall(context, lifecycleCall(deployment, payload)))
    if (reverted) return { ok: false, ...reverted }
  }
  return { ok: true, deployment, paymentInfoHash, state }
}

/** The signed expectations of a capture or refund against the state read now. */
function checkExpectations(
  payload: { expectedCapturableAmount: string; expectedRefundableAmount: string },
  state: PaymentState,
) {
  if (
    BigInt(payload.expectedCapturableAmount) !== state.capturableAmount ||
    BigInt(payload.expectedRefundableAmount) !== state.refundableAmount
  )
    return refuse(
      'unexpected_payment_state',
      `the payment holds ${state.capturableAmount} capturable and ${state.refundableAmount} refundable, not the ${payload.expectedCapturableAmount} and ${payload.expectedRefundableAmount} signed`,
    )
  return undefined
}

/** The receiver's allowance to the operator and its balance, which fund a refund (§1.6). */
async function checkFunding(context: AuthCaptureContext, receiver: Address, token: Address, amount: bigint) {
  const [allowance, balance] = await Promise.all([
    tokenAllowance(context, token, receiver, context.operator),
    tokenBalance(context, token, receiver),
  ])
  if (allowance < amount || balance < amount)
    return refuse(
      'refund_funding_unavailable',
      allowance < amount
        ? `the receiver ${receiver} allows the operator ${allowance}, less than the refund of ${amount}: approve(${context.operator}, ${amount}) on the token from the receiver (the faucet's approve_escrow_operator does it on the Sandbox)`
        : `the receiver ${receiver} holds ${balance}, less than the refund of ${amount}`,
    )
  return undefined
}

/** The escrow call of a capture or void (a refund's is sent after its funding). */
const lifecycleCall = (deployment: AuthCaptureDeployment, payload: LifecyclePayload): EscrowCall =>
  payload.type === 'capture'
    ? {
        escrow: deployment.escrow,
        functionName: 'capture',
        args: [
          paymentInfoOnChain(payload.paymentInfo),
          BigInt(payload.amount),
          BigInt(payload.feeAmount),
          getAddress(payload.feeReceiver),
        ],
      }
    : payload.type === 'void'
      ? { escrow: deployment.escrow, functionName: 'void', args: [paymentInfoOnChain(payload.paymentInfo)] }
      : {
          escrow: deployment.escrow,
          functionName: 'refund',
          args: [
            paymentInfoOnChain(payload.paymentInfo),
            BigInt(payload.amount),
            deployment.operatorRefundCollector,
            '0x',
          ],
        }

export async function verifyLifecycle(
  context: AuthCaptureContext,
  judging: Judging & { read: LifecycleRead },
  requirements: PaymentRequirements,
): Promise<VerifyResponse> {
  const payer = judging.read.payload.paymentInfo.payer
  const judged = await judgeLifecycle(context, judging, requirements)
  return judged.ok
    ? { isValid: true, payer }
    : { isValid: false, invalidReason: judged.reason, invalidMessage: judged.message, payer }
}

/**
 * Settles a lifecycle payload in the operator's turn: judged on the state read there, then sent and journaled. A
 * capture with `voidAuthorizerSignature` voids what is left after it (skipped when nothing is); the answer's `amount`
 * is what was captured, voided or refunded.
 */
export function settleLifecycle(
  context: AuthCaptureContext,
  judging: Judging & { read: LifecycleRead },
  requirements: PaymentRequirements,
): Promise<SettleResponse> {
  const payload = judging.read.payload
  const payer = payload.paymentInfo.payer
  return context.turn(async () => {
    const judged = await judgeLifecycle(context, judging, requirements)
    if (!judged.ok) return settleRefusal(judged, requirements, payer)
    const { deployment, paymentInfoHash, state } = judged
    const extra = { paymentInfoHash, authCaptureEscrow: deployment.escrow }
    const start = {
      network: requirements.network,
      paymentInfoHash,
      escrow: deployment.escrow,
      paymentInfo: payload.paymentInfo,
    }
    const done = (transaction: Hex, amount: bigint): SettleResponse => ({
      success: true,
      transaction,
      network: requirements.network,
      payer,
      amount: amount.toString(),
      extra,
    })
    const sendVoid = (held: bigint) =>
      context.actions.run({ ...start, kind: 'void', requested: held.toString() }, context.chain, async () => {
        const sent = await sendEscrowCall(context, lifecycleCall(deployment, { ...payload, type: 'void' }))
        return sent.ok ? done(sent.transaction, held) : settleRefusal(sent, requirements, payer, sent.transaction)
      })
    if (payload.type === 'void') return sendVoid(state.capturableAmount)
    const amount = BigInt(payload.amount)
    if (payload.type === 'capture') {
      const captured = await context.actions.run(
        { ...start, kind: 'capture', requested: amount.toString() },
        context.chain,
        async () => {
          const sent = await sendEscrowCall(context, lifecycleCall(deployment, payload))
          return sent.ok ? done(sent.transaction, amount) : settleRefusal(sent, requirements, payer, sent.transaction)
        },
      )
      if (!captured.success || payload.voidAuthorizerSignature === undefined) return captured
      const left = await readPaymentState(context.chain.client, deployment.escrow, paymentInfoHash)
      if (left.capturableAmount === 0n) return captured
      const voided = await sendVoid(left.capturableAmount)
      return voided.success
        ? { ...captured, extra: { ...extra, voidTransaction: voided.transaction, voided: voided.amount } }
        : {
            ...captured,
            extra: { ...extra, voidError: `${voided.errorReason}: ${voided.errorMessage}` },
          }
    }
    return context.actions.run({ ...start, kind: 'refund', requested: amount.toString() }, context.chain, (progress) =>
      refund(context, { deployment, payload, amount, done, requirements, progress }),
    )
  })
}

/**
 * Gives a refund's funding back to its receiver: the operator's transfer of `amount` (recovery's, for a funding whose
 * refund never reached the chain), in the operator's turn.
 */
export function returnRefundFunding(
  context: AuthCaptureContext,
  funding: { token: Address; receiver: Address; amount: bigint },
): Promise<Hex> {
  return context.turn(async () => {
    const data = encodeFunctionData({
      abi: erc20Abi,
      functionName: 'transfer',
      args: [funding.receiver, funding.amount],
    })
    const returned = await sendFromOperator(context, funding.token, data)
    if (!returned.ok) throw new Error(`the funding could not be returned: ${returned.message}`)
    return returned.transaction
  })
}

/**
 * A refund funded by the receiver (§1.6): the operator's approval of the refund collector (once per token), the
 * receiver's `amount` moved to the operator (its allowance), the escrow's `refund`; a refund that fails gives the
 * amount back to the receiver.
 */
async function refund(
  context: AuthCaptureContext,
  refunding: {
    deployment: AuthCaptureDeployment
    payload: Extract<LifecyclePayload, { type: 'refund' }>
    amount: bigint
    /** The success answer of the refund's transaction. */
    done: (transaction: Hex, amount: bigint) => SettleResponse
    requirements: PaymentRequirements
    /** The journal's, told of the funding before the refund is sent (recovery returns a funding left alone). */
    progress: EscrowActionProgress
  },
) {
  const { deployment, payload, amount, done, requirements, progress } = refunding
  const { token, receiver, payer } = payload.paymentInfo
  const erc20 = (functionName: 'approve' | 'transferFrom' | 'transfer', args: readonly unknown[]) =>
    sendFromOperator(context, token, encodeFunctionData({ abi: erc20Abi, functionName, args: args as never }))
  if ((await tokenAllowance(context, token, context.operator, deployment.operatorRefundCollector)) < amount) {
    const approved = await erc20('approve', [deployment.operatorRefundCollector, maxUint256])
    if (!approved.ok) return settleRefusal(approved, requirements, payer, approved.transaction)
  }
  const funded = await erc20('transferFrom', [receiver, context.operator, amount])
  if (!funded.ok)
    return settleRefusal(
      refuse('refund_funding_unavailable', `the receiver's funding of the refund failed: ${funded.message}`),
      requirements,
      payer,
      funded.transaction,
    )
  await progress.funded(funded.transaction)
  const sent = await sendEscrowCall(context, lifecycleCall(deployment, payload))
  if (sent.ok) {
    const answer = done(sent.transaction, amount)
    return { ...answer, extra: { ...answer.extra, fundingTransaction: funded.transaction } }
  }
  const returned = await erc20('transfer', [receiver, amount])
  return {
    ...settleRefusal(sent, requirements, payer, sent.transaction),
    extra: {
      fundingTransaction: funded.transaction,
      ...(returned.ok ? { returnTransaction: returned.transaction } : {}),
    },
    ...(returned.ok ? {} : { errorMessage: `${sent.message}; the funding could not be returned: ${returned.message}` }),
  }
}
