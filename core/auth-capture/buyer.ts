/**
 * The buyer's side of an auth-capture payment after it signed: which escrow payment it made (reopened from its own
 * payload and the requirements it accepted, as the facilitator reopens it), and the escrow calls a buyer makes
 * itself: `paymentState` to read what is still held, `reclaim` to take it back once the capture deadline passed
 * (the escrow lets only the payer call it, from `authorizationExpiry` on).
 */
import { type Address, type Hex, parseAbi } from 'viem'
import { normalizeExtra } from './extra.js'
import { chainIdOf, reopenCollect } from './reopen.js'
import { readPayload } from './read-payload.js'
import type { PaymentInfo } from './types.js'

/** What a buyer keeps of an auth-capture payment it made, to read it and reclaim it later. */
export type BuyerEscrowPayment = {
  paymentInfoHash: Hex
  network: string
  chainId: number
  escrow: Address
  paymentInfo: PaymentInfo
}

/** The escrow payment a signed payload makes, or undefined when it is no auth-capture collect these requirements take. */
export function buyerEscrowPaymentOf(payment: {
  accepted: { scheme: string; network: string; amount: string; asset: string; payTo: string; extra?: unknown }
  payload: unknown
}): BuyerEscrowPayment | undefined {
  const { accepted } = payment
  if (accepted.scheme !== 'auth-capture') return undefined
  const chainId = chainIdOf(accepted.network)
  const read = readPayload(payment.payload)
  const normalized = normalizeExtra(accepted.extra)
  if (chainId === undefined || !read.ok || read.kind === 'lifecycle' || !normalized.ok) return undefined
  const reopened = reopenCollect({
    chainId,
    requirements: accepted,
    extra: normalized.extra,
    deployments: normalized.deployments,
    read,
  })
  if (!reopened.ok) return undefined
  return {
    paymentInfoHash: reopened.paymentInfoHash,
    network: accepted.network,
    chainId,
    escrow: reopened.deployment.escrow,
    paymentInfo: reopened.paymentInfo,
  }
}

const paymentInfoTuple =
  '(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)'

/** The two escrow functions a buyer calls (base/commerce-payments `AuthCaptureEscrow`). */
export const buyerEscrowAbi = parseAbi([
  `function reclaim(${paymentInfoTuple} paymentInfo)`,
  'function paymentState(bytes32 paymentInfoHash) view returns (bool hasCollectedPayment, uint120 capturableAmount, uint120 refundableAmount)',
])

/** `paymentInfo` as viem encodes the escrow's struct argument. */
export const paymentInfoArgument = (info: PaymentInfo) => ({
  ...info,
  maxAmount: BigInt(info.maxAmount),
  salt: BigInt(info.salt),
})
