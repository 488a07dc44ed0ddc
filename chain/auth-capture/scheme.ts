/**
 * x402's `auth-capture` scheme (escrow payments) in svc's facilitator, one instance per chain (the Sandbox chain and
 * each twin): a `SchemeNetworkFacilitator` that verifies and settles the client's collect (`authorize` on the escrow
 * flow, `charge` on the authorization flow, collect.ts) and relays the resource server's `capture`, `void` and
 * `refund` (lifecycle.ts) as the `delegated` operator, svc's relayer account 1. The refusals are the binding's
 * reasons (core/reasons.ts `authCaptureEvmReasonRecords`); a payload it cannot read is refused, never thrown.
 */
import type { SchemeNetworkFacilitator } from '@x402/core/types'
import type { Network, PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { offeredEscrow } from '../../core/auth-capture/deployments.js'
import { authCaptureScheme, type Refusal } from '../../core/auth-capture/types.js'
import type { Clock } from '../../core/clock.js'
import type { RelaySigner } from '../relay/index.js'
import type { SandboxChain } from '../sandbox-chain.js'
import type { EscrowActionJournal } from './actions.js'
import { settleCollect, verifyCollect } from './collect.js'
import { type AuthCaptureContext, createTurns, type Judging, judgeCommon, settleRefusal } from './context.js'
import { returnRefundFunding, settleLifecycle, verifyLifecycle } from './lifecycle.js'
import { revertRefusal } from './reverts.js'

export const authCaptureSchemeName = authCaptureScheme

const atomic = /^[0-9]{1,78}$/

/**
 * The requirements the buyer signed: x402's settlement overrides lower `requirements.amount` for the capture or charge
 * they settle, never the PaymentInfo's `maxAmount`, which is the accepted's amount. A payment is checked against what
 * its buyer signed (as x402's facilitator does); the lowered amount is the capture's or charge's own (in its payload).
 */
export function signedRequirements(payload: PaymentPayload, requirements: PaymentRequirements): PaymentRequirements {
  const signed = payload.accepted?.amount
  if (
    typeof signed !== 'string' ||
    signed === requirements.amount ||
    !atomic.test(signed) ||
    !atomic.test(requirements.amount) ||
    BigInt(signed) < BigInt(requirements.amount)
  )
    return requirements
  return { ...requirements, amount: signed }
}

export type AuthCaptureFacilitatorScheme = SchemeNetworkFacilitator & {
  /** The operator (`captureAuthorizer`): svc's relayer account 1. */
  operator: `0x${string}`
}

/** The scheme on `chain`, relaying through `signer` from its first account (account 1), journaling in `actions`. */
export function createAuthCaptureScheme(options: {
  chain: SandboxChain
  signer: RelaySigner
  clock: Clock
  actions: EscrowActionJournal
}): AuthCaptureFacilitatorScheme {
  const operator = options.signer.getAddresses()[0]!
  const context: AuthCaptureContext = { ...options, operator, turn: createTurns() }
  options.actions.returnFundingOn(options.chain.network, (action) =>
    returnRefundFunding(context, { token: action.token, receiver: action.receiver, amount: BigInt(action.requested) }),
  )
  /** A check that threw (the chain went away, a read failed) is a refusal the caller sees, not a 500. */
  const unexpected = (error: unknown): Refusal => revertRefusal(error)
  return {
    scheme: authCaptureScheme,
    caipFamily: 'eip155:*',
    operator,
    getExtra: (_network: Network) => ({ captureAuthorizer: operator, authCaptureEscrow: offeredEscrow }),
    getSigners: () => [operator],
    async verify(payload: PaymentPayload, lowered: PaymentRequirements): Promise<VerifyResponse> {
      const requirements = signedRequirements(payload, lowered)
      try {
        const judging = judgeCommon(context, payload, requirements)
        if (!judging.ok) return { isValid: false, invalidReason: judging.reason, invalidMessage: judging.message }
        return judging.read.kind === 'lifecycle'
          ? await verifyLifecycle(context, judging as Judging & { read: typeof judging.read }, requirements)
          : await verifyCollect(context, judging as Judging & { read: typeof judging.read }, requirements)
      } catch (error) {
        const refusal = unexpected(error)
        return { isValid: false, invalidReason: refusal.reason, invalidMessage: refusal.message }
      }
    },
    async settle(payload: PaymentPayload, lowered: PaymentRequirements): Promise<SettleResponse> {
      const requirements = signedRequirements(payload, lowered)
      try {
        const judging = judgeCommon(context, payload, requirements)
        if (!judging.ok) return settleRefusal(judging, requirements, undefined)
        return judging.read.kind === 'lifecycle'
          ? await settleLifecycle(context, judging as Judging & { read: typeof judging.read }, requirements)
          : await settleCollect(context, judging as Judging & { read: typeof judging.read }, requirements)
      } catch (error) {
        return settleRefusal(unexpected(error), requirements, undefined)
      }
    },
  }
}
