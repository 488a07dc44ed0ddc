/**
 * The collect of an auth-capture payment (x402 scheme_auth_capture_evm.md @3659f12, "Verification" steps 6–15 and
 * "Settlement"): the client's EIP-3009 or Permit2 authorization moved into the escrow by the operator, as `authorize`
 * (flow `escrow`: a hold) or `charge` (flow `authorization`: paid out at once, with the receiver authorizer's
 * consent to the amount and fee the server completed). Times by svc's clock; the call simulated from the operator (the
 * payer's balance read when the simulation reverts, for the reason).
 */
import type { PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { type Address, getAddress, isAddressEqual, zeroAddress } from 'viem'
import { feeBounds } from '../../core/auth-capture/extra.js'
import { collectorDataHash } from '../../core/auth-capture/hashes.js'
import {
  checkCollectTimes,
  collectFields,
  collectorDataOf,
  type Reopened,
  reopenCollect,
} from '../../core/auth-capture/reopen.js'
import type { ReadPayload } from '../../core/auth-capture/read-payload.js'
import {
  chargeTypedData,
  permitTransferFromTypedData,
  receiveWithAuthorizationTypedData,
} from '../../core/auth-capture/typed-data.js'
import type { ChargeCompletion, CollectPayload, Judged, Refusal } from '../../core/auth-capture/types.js'
import {
  type AuthCaptureContext,
  checkSignature,
  collectorOf,
  type EscrowCall,
  type Judging,
  refuse,
  sendEscrowCall,
  settleRefusal,
  simulateEscrowCall,
  tokenBalance,
} from './context.js'

type CollectRead = Extract<ReadPayload, { kind: 'eip3009' | 'permit2' }>

/** A collect that passed: the payment reopened and the escrow call that collects it. */
type JudgedCollect = { reopened: Reopened; call: EscrowCall; amount: bigint; payer: Address }

/** The four charge fields, when the server completed them. */
const completionOf = (payload: CollectPayload): ChargeCompletion | undefined =>
  payload.authorizerSignature === undefined ? undefined : (payload as CollectPayload & ChargeCompletion)

/**
 * Steps 6–15 of a collect: reopened (method, salt, collector, token, amount, nonce), its times, a charge's completion
 * (required at /settle) and its authorizer's consent, the client's signature, the payer's balance, the simulation.
 */
async function judgeCollect(
  context: AuthCaptureContext,
  judging: Judging & { read: CollectRead },
  requirements: PaymentRequirements,
  phase: 'verify' | 'settle',
): Promise<Judged<JudgedCollect>> {
  const { extra, read, chainId } = judging
  const reopened = reopenCollect({
    chainId,
    requirements,
    extra,
    deployments: judging.deployments,
    read,
  })
  if (!reopened.ok) return reopened
  const fields = collectFields(read)
  const times = checkCollectTimes({
    now: context.clock.nowSeconds(),
    maxTimeoutSeconds: requirements.maxTimeoutSeconds,
    extra,
    validAfter: fields.validAfter,
    validBefore: fields.validBefore,
  })
  if (!times.ok) return times
  const { deployment, paymentInfo, paymentInfoHash } = reopened
  const tokenCollector = collectorOf(deployment, read.kind)
  const collectorData = collectorDataOf(read.payload)
  let call: EscrowCall
  let amount = BigInt(requirements.amount)
  if (extra.paymentFlow === 'authorization') {
    const completion = completionOf(read.payload)
    if (!completion && phase === 'settle')
      return refuse(
        'payload_format',
        'a charge is settled with the completion: amount, feeAmount, feeReceiver and authorizerSignature',
      )
    const feeAmount = BigInt(completion?.feeAmount ?? 0)
    const feeReceiver = getAddress(completion?.feeReceiver ?? paymentInfo.feeReceiver)
    if (completion) {
      amount = BigInt(completion.amount)
      if (amount === 0n || amount > BigInt(requirements.amount))
        return refuse('amount_mismatch', `the charge's amount ${amount} must be from 1 to ${requirements.amount}`)
      const fee = checkFee({
        amount,
        feeAmount,
        feeReceiver,
        bounds: extra,
        signedFeeReceiver: paymentInfo.feeReceiver,
      })
      if (fee) return { ok: false, ...fee }
      const consent = await checkSignature(context, {
        signer: extra.receiverAuthorizer,
        typedData: chargeTypedData(
          { chainId, captureAuthorizer: extra.captureAuthorizer },
          {
            paymentInfoHash,
            amount,
            tokenCollector,
            collectorDataHash: collectorDataHash(collectorData),
            feeAmount,
            feeReceiver,
          },
        ) as never,
        signature: completion.authorizerSignature,
        refusedAs: 'authorizer_signature',
        what: 'authorizerSignature',
      })
      if (!consent.ok) return consent
    }
    call = {
      escrow: deployment.escrow,
      functionName: 'charge',
      args: [paymentInfoOnChain(paymentInfo), amount, tokenCollector, collectorData, feeAmount, feeReceiver],
    }
  } else
    call = {
      escrow: deployment.escrow,
      functionName: 'authorize',
      args: [paymentInfoOnChain(paymentInfo), amount, tokenCollector, collectorData],
    }
  const typedData =
    read.kind === 'eip3009'
      ? receiveWithAuthorizationTypedData(
          { chainId, address: requirements.asset as Address, name: extra.name, version: extra.version },
          read.payload.authorization,
        )
      : permitTransferFromTypedData(chainId, read.payload.permit2Authorization)
  const signed = await checkSignature(context, {
    signer: fields.payer,
    typedData: typedData as never,
    signature: read.payload.signature,
    refusedAs: 'signature',
    what: "the payment's signature",
  })
  if (!signed.ok) return signed
  const required = BigInt(requirements.amount)
  const short = async () => {
    const balance = await tokenBalance(context, paymentInfo.token, fields.payer)
    return balance < required
      ? refuse('insufficient_balance', `the payer holds ${balance}, less than ${requirements.amount}`)
      : undefined
  }
  // A payer short of what the call moves makes its simulation revert: the balance is read then, for the reason (one
  // chain read less for every payment that passes); first only for a charge of less than what was signed.
  const shortFirst = amount < required ? await short() : undefined
  if (shortFirst) return shortFirst
  const reverted = await simulateEscrowCall(context, call)
  if (reverted) return (await short()) ?? { ok: false, ...reverted }
  return { ok: true, reopened, call, amount, payer: fields.payer }
}

/** v1.1's fee rule at the facilitator: within the bounds for `amount`, a non-zero receiver, the signed one. */
export function checkFee(fee: {
  amount: bigint
  feeAmount: bigint
  feeReceiver: Address
  /** extra's minFeeBps and maxFeeBps. */
  bounds: { minFeeBps: number; maxFeeBps: number }
  /** paymentInfo.feeReceiver (zero: any). */
  signedFeeReceiver: Address
}): Refusal | undefined {
  const { amount, feeAmount, feeReceiver, signedFeeReceiver } = fee
  const bounds = feeBounds(amount, fee.bounds)
  if (feeAmount < bounds.min || feeAmount > bounds.max)
    return refuse(
      'fee_bps_out_of_range',
      `feeAmount ${feeAmount} is outside ${bounds.min}–${bounds.max} (minFeeBps–maxFeeBps of ${amount})`,
    )
  if (feeAmount > 0n && isAddressEqual(feeReceiver, zeroAddress))
    return refuse('zero_fee_receiver', 'a non-zero feeAmount needs a non-zero feeReceiver')
  if (!isAddressEqual(signedFeeReceiver, zeroAddress) && !isAddressEqual(feeReceiver, signedFeeReceiver))
    return refuse('fee_receiver', `feeReceiver ${feeReceiver} is not the payment's ${signedFeeReceiver}`)
  return undefined
}

/** The PaymentInfo as the escrow's ABI takes it (numbers as the ABI's integers). */
export const paymentInfoOnChain = (info: Reopened['paymentInfo']) => ({
  operator: info.operator,
  payer: info.payer,
  receiver: info.receiver,
  token: info.token,
  maxAmount: BigInt(info.maxAmount),
  preApprovalExpiry: info.preApprovalExpiry,
  authorizationExpiry: info.authorizationExpiry,
  refundExpiry: info.refundExpiry,
  minFeeBps: info.minFeeBps,
  maxFeeBps: info.maxFeeBps,
  feeReceiver: info.feeReceiver,
  salt: BigInt(info.salt),
})

export async function verifyCollect(
  context: AuthCaptureContext,
  judging: Judging & { read: CollectRead },
  requirements: PaymentRequirements,
): Promise<VerifyResponse> {
  const payer = collectFields(judging.read).payer
  const judged = await judgeCollect(context, judging, requirements, 'verify')
  return judged.ok
    ? { isValid: true, payer }
    : { isValid: false, invalidReason: judged.reason, invalidMessage: judged.message, payer }
}

/**
 * Settles a collect: judged again (a refusal is `…_verification_failed`, its own reason in the message), then sent
 * from the operator in its turn and journaled. The answer's `amount` is what moved (the hold, or the charge), its
 * `extra` the payment's id on the escrow.
 */
export async function settleCollect(
  context: AuthCaptureContext,
  judging: Judging & { read: CollectRead },
  requirements: PaymentRequirements,
): Promise<SettleResponse> {
  const payer = collectFields(judging.read).payer
  const judged = await judgeCollect(context, judging, requirements, 'settle')
  if (!judged.ok)
    return settleRefusal(refuse('verification_failed', `${judged.reason}: ${judged.message}`), requirements, payer)
  const { reopened, call, amount } = judged
  return context.turn(() =>
    context.actions.run(
      {
        network: requirements.network,
        kind: call.functionName as 'authorize' | 'charge',
        paymentInfoHash: reopened.paymentInfoHash,
        escrow: reopened.deployment.escrow,
        paymentInfo: reopened.paymentInfo,
        requested: amount.toString(),
      },
      context.chain,
      async () => {
        const sent = await sendEscrowCall(context, call)
        if (!sent.ok) return settleRefusal(sent, requirements, payer, sent.transaction)
        return {
          success: true,
          transaction: sent.transaction,
          network: requirements.network,
          payer,
          amount: amount.toString(),
          extra: { paymentInfoHash: reopened.paymentInfoHash, authCaptureEscrow: reopened.deployment.escrow },
        }
      },
    ),
  )
}
