import { getAddress, isAddress, isAddressEqual, zeroAddress } from 'viem'
import type { z } from 'zod'

/**
 * The bounds of an auth-capture accept's relative deadlines (svc's: the 402 writes the absolute `captureDeadline` and
 * `refundDeadline` x402 carries from them, on svc's clock). The capture window must outlast the payment window by two
 * minutes: one grid step of the 402's deadlines (60 s) and the facilitator's 6 s floor, with margin.
 */
export const captureDeadlineMarginSeconds = 120
export const maxCaptureDeadlineSeconds = 31_536_000
export const maxRefundDeadlineSeconds = 315_360_000
export const defaultCaptureDeadlineSeconds = 86_400
export const defaultRefundDeadlineSeconds = 604_800

/**
 * The `extra` fields of an auth-capture accept (x402's escrow payments). `paymentFlow` escrow (a hold, captured or
 * voided after the upstream answered) or authorization (one terminal charge); `captureMode` sync (the gateway captures
 * on the answer) or deferred (the seller captures later through `/payments`); the fee terms are x402's.
 */
export type AuthCaptureAcceptExtra = {
  paymentFlow?: 'escrow' | 'authorization'
  captureMode?: 'sync' | 'deferred'
  captureDeadlineSeconds?: number
  refundDeadlineSeconds?: number
  minFeeBps?: number
  maxFeeBps?: number
  feeRecipient?: string
  assetTransferMethod?: 'eip3009' | 'permit2'
}

/** Fields svc (its facilitator, or the 402 on svc's clock) writes: a seller cannot set them. */
const writtenBySvc: Record<string, string> = {
  captureAuthorizer: "is svc's facilitator's operator, written into the 402: leave it out",
  receiverAuthorizer: 'is the key svc keeps for the seller to sign captures, voids and refunds: leave it out',
  authCaptureEscrow: 'is the escrow svc serves, written into the 402: leave it out',
  policy: 'is for the "policy" operator type, which svc does not implement: leave it out',
  captureDeadline: "is written by the 402 from captureDeadlineSeconds on svc's clock: give captureDeadlineSeconds",
  refundDeadline: "is written by the 402 from refundDeadlineSeconds on svc's clock: give refundDeadlineSeconds",
  autoCapture: 'was removed in x402\'s auth-capture v1.1: use paymentFlow ("authorization" for a terminal charge)',
  gasSponsoring: 'auth-capture payments are not gas-sponsored: leave it out',
}

const integerIn = (value: unknown, min: number, max: number) =>
  typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max

/**
 * The rules of an `auth-capture` accept, added to `ctx` (zod's refinement context): the flow and capture mode, the
 * capture and refund windows (relative seconds: at least the payment window + 120 s, refund at least capture), the fee
 * terms (0–10000 bps, min ≤ max, a non-zero feeRecipient iff a fee may be taken), and no field svc writes itself.
 */
export function checkAuthCaptureAccept(
  accept: { max_timeout_seconds: number; extra?: Record<string, unknown> | undefined },
  ctx: z.RefinementCtx,
): void {
  const extra = accept.extra ?? {}
  const issue = (field: string, message: string) => ctx.addIssue({ code: 'custom', path: ['extra', field], message })
  for (const [field, why] of Object.entries(writtenBySvc)) if (extra[field] !== undefined) issue(field, why)
  if (extra.operatorType !== undefined && extra.operatorType !== 'delegated')
    issue('operatorType', 'must be "delegated" (svc\'s facilitator is the operator) or left out')
  const flow = extra.paymentFlow ?? 'escrow'
  if (flow !== 'escrow' && flow !== 'authorization')
    issue(
      'paymentFlow',
      flow === 'upfront'
        ? 'auth-capture collects before the upstream is called anyway: use "escrow" (a hold, the default) or "authorization" (a terminal charge)'
        : 'must be one of escrow, authorization',
    )
  const mode = extra.captureMode
  if (mode !== undefined) {
    if (flow === 'authorization')
      issue('captureMode', 'is for the escrow flow: leave it out with paymentFlow "authorization"')
    else if (mode !== 'sync' && mode !== 'deferred') issue('captureMode', 'must be one of sync, deferred')
  }
  const minCapture = accept.max_timeout_seconds + captureDeadlineMarginSeconds
  const capture = extra.captureDeadlineSeconds ?? defaultCaptureDeadlineSeconds
  if (!integerIn(capture, minCapture, maxCaptureDeadlineSeconds))
    issue(
      'captureDeadlineSeconds',
      `must be an integer number of seconds between ${minCapture} (max_timeout_seconds + ${captureDeadlineMarginSeconds}) and ${maxCaptureDeadlineSeconds}`,
    )
  const refund = extra.refundDeadlineSeconds ?? defaultRefundDeadlineSeconds
  if (!integerIn(refund, 1, maxRefundDeadlineSeconds))
    issue('refundDeadlineSeconds', `must be an integer number of seconds between 1 and ${maxRefundDeadlineSeconds}`)
  else if (typeof capture === 'number' && (refund as number) < capture)
    issue('refundDeadlineSeconds', `must be at least captureDeadlineSeconds (${capture}): refunds follow captures`)
  for (const field of ['minFeeBps', 'maxFeeBps'] as const)
    if (extra[field] !== undefined && !integerIn(extra[field], 0, 10_000))
      issue(field, 'must be an integer number of basis points between 0 and 10000')
  const min = integerIn(extra.minFeeBps, 0, 10_000) ? (extra.minFeeBps as number) : 0
  const max = integerIn(extra.maxFeeBps, 0, 10_000) ? (extra.maxFeeBps as number) : 0
  if (min > max) issue('minFeeBps', `must not be above maxFeeBps (${max})`)
  const recipient = extra.feeRecipient
  if (recipient !== undefined && (typeof recipient !== 'string' || !isAddress(recipient, { strict: false })))
    issue('feeRecipient', 'not an EVM address (0x followed by 40 hex digits)')
  else {
    const zero = recipient === undefined || isAddressEqual(getAddress(recipient as string), zeroAddress)
    if (max > 0 && zero) issue('feeRecipient', 'is required (a non-zero address) when maxFeeBps is above 0')
    if (max === 0 && !zero) issue('feeRecipient', 'takes nothing with maxFeeBps 0: leave it out, or set the fee bounds')
  }
}
