import type { PaymentRequirements } from '@x402/core/types'
import type { Hex } from 'viem'
import type { SandboxChain } from '../../chain/sandbox-chain.js'
import { type AuthCaptureDeployment, deploymentOfEscrow } from '../../core/auth-capture/deployments.js'
import { buildVoid, type LifecycleTarget } from '../../core/auth-capture/lifecycle-payloads.js'
import type { LifecyclePayload, PaymentInfo } from '../../core/auth-capture/types.js'
import type { EscrowPaymentRow } from '../db/index.js'
import type { HoldVoider } from './action-recovery.js'
import type { EscrowDeps } from './deps.js'
import { receiverAuthorizerOf } from './keys.js'

/** How long a recovered payment's requirements say a lifecycle call may take (seconds). */
const lifecycleTimeoutSeconds = 60

/** The auth-capture requirements a recorded payment was paid under, as its lifecycle payloads are settled against. */
export function requirementsOfPayment(
  payment: EscrowPaymentRow,
  token: { name: string; version: string },
): PaymentRequirements {
  const info = JSON.parse(payment.payment_info) as PaymentInfo
  return {
    scheme: 'auth-capture',
    network: payment.network as PaymentRequirements['network'],
    asset: payment.asset,
    amount: info.maxAmount,
    payTo: payment.pay_to,
    maxTimeoutSeconds: lifecycleTimeoutSeconds,
    extra: {
      name: token.name,
      version: token.version,
      authCaptureEscrow: payment.escrow,
      captureAuthorizer: payment.operator,
      receiverAuthorizer: payment.receiver_authorizer,
      operatorType: 'delegated',
      paymentFlow: payment.flow,
      ...(payment.capture_mode !== null && { captureMode: payment.capture_mode }),
      captureDeadline: payment.capture_deadline,
      refundDeadline: payment.refund_deadline,
      minFeeBps: info.minFeeBps,
      maxFeeBps: info.maxFeeBps,
      feeRecipient: info.feeReceiver,
      assetTransferMethod: payment.transfer_method,
    },
  }
}

/**
 * What a recorded payment's lifecycle payloads (capture, void, refund) name: the payment on its own network's chain
 * (the chain id its `paymentInfoHash` is taken with), in `deployment`, with its PaymentInfo and salt.
 */
export function lifecycleTargetOf(payment: EscrowPaymentRow, deployment: AuthCaptureDeployment): LifecycleTarget {
  return {
    chainId: Number(payment.network.split(':')[1]),
    deployment,
    paymentInfo: JSON.parse(payment.payment_info) as PaymentInfo,
    saltNonce: (payment.salt_nonce ?? `0x${'0'.repeat(64)}`) as Hex,
  }
}

/**
 * Settles a lifecycle payload (capture, void, refund) of a recorded payment in process, through the chain's
 * facilitator, against the requirements it was paid under: the facilitator's answer, or 'chain-down'.
 */
export function settleRecordedLifecycle(
  chain: NonNullable<EscrowDeps['chain']>,
  payment: EscrowPaymentRow,
  payload: LifecyclePayload,
) {
  const on = runningChainOf(chain, payment.network) ?? chain.sandboxChain
  const requirements = requirementsOfPayment(payment, on.usdc)
  return chain.facilitator.settleJudged(
    { x402Version: 2, accepted: requirements, payload: payload as unknown as Record<string, unknown> },
    requirements,
  )
}

/** The chain of `network` among those svc runs (the Sandbox chain, its twins), if it runs it. */
export function runningChainOf(chain: NonNullable<EscrowDeps['chain']>, network: string): SandboxChain | undefined {
  if (chain.sandboxChain.network === network) return chain.sandboxChain
  return chain.twins.find((twin) => twin.chain.network === network)?.chain
}

/**
 * The chain svc runs that holds a recorded payment and whose facilitator relays its lifecycle: the Sandbox chain for
 * a Sandbox API's; for a production API's paid through svc's facilitator (SVC_FACILITATOR_URL = svc's, so its
 * operator is svc's), the chain of its network svc runs (a twin, `svc up --twin`); else why svc does not move it. A
 * payment on a real network, or held by another facilitator's operator, is that facilitator's to move.
 */
export function escrowChainOf(
  chain: EscrowDeps['chain'],
  payment: EscrowPaymentRow,
): { chain: SandboxChain } | { why: string } {
  if (payment.environment === 'development')
    return chain ? { chain: chain.sandboxChain } : { why: 'the Sandbox chain is not running' }
  const on = chain && runningChainOf(chain, payment.network)
  if (!on)
    return {
      why: `svc moves escrow payments on the chains it runs only (the Sandbox chain and its twins, svc up --twin); this one is on ${payment.network}: move it through the facilitator that holds it`,
    }
  if (payment.operator.toLowerCase() !== chain!.facilitator.operator.toLowerCase())
    return {
      why: `it is held by another facilitator's operator (${payment.operator}), not svc's: move it through that facilitator`,
    }
  return { chain: on }
}

/**
 * Voids a payment's hold through the chain's facilitator, as the gateway's escrow flow would have: a `void` payload
 * signed by the seller's receiver authorizer (keys.ts), settled in process. Throws the facilitator's refusal (a
 * facilitator without the auth-capture scheme refuses it: the hold then stays, logged).
 */
export function facilitatorHoldVoider(deps: EscrowDeps): HoldVoider {
  return async (payment) => {
    const chain = deps.chain
    if (!chain) throw new Error('no chain services here')
    const deployment = deploymentOfEscrow(payment.escrow)
    if (!deployment) throw new Error(`the escrow ${payment.escrow} is not one svc serves`)
    const signer = await receiverAuthorizerOf(deps, payment.user_id)
    const payload = await buildVoid(lifecycleTargetOf(payment, deployment), signer)
    const answer = await settleRecordedLifecycle(chain, payment, payload)
    if (answer === 'chain-down') throw new Error('the chain is restarting')
    if (!answer.success)
      throw new Error(answer.errorMessage ?? answer.errorReason ?? 'the facilitator refused the void')
    return { transaction: answer.transaction }
  }
}
