import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { canonicalJson } from '../../core/canonical-json.js'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import type { CompiledPattern } from '../../core/path-pattern.js'
import type { ClaimRefused, ClaimRequest, PaymentLocks } from '../journal/index.js'
import type { PaymentOutcome } from './outcome.js'

/** The 503 of a refusal that a retry can get past (`retryAfter`); undefined for the others. */
export const retryLater = (refusal: ClaimRefused): PaymentOutcome | undefined =>
  refusal.retryAfter === undefined
    ? undefined
    : { type: 'error', status: 503, error: refusal.message, retryAfter: refusal.retryAfter }

/**
 * Pays (`pay`) holding the claim of `request`, or answers its refusal (`refuse`: nothing is charged). The claim is
 * released before the answer, so a corrected retry of a refused payment finds it free (PostgreSQL: its row deleted);
 * an ephemeral endpoint paid for stays claimed and is remembered as used up (its `pattern`).
 */
export async function payClaimed(
  locks: PaymentLocks,
  request: ClaimRequest & { pattern: CompiledPattern },
  pay: () => Promise<PaymentOutcome>,
  refuse: (refusal: ClaimRefused) => PaymentOutcome | Promise<PaymentOutcome>,
): Promise<PaymentOutcome> {
  const claiming = locks.claim(request)
  // SQLite's claims are synchronous: no await on its fast path.
  const claim = claiming instanceof Promise ? await claiming : claiming
  if (!claim.ok) return refuse(claim)
  let consumed = false
  try {
    const outcome = await pay()
    consumed = request.ephemeral !== undefined && outcome.type === 'paid'
    return outcome
  } finally {
    const released = claim.release(consumed)
    if (released) await released
    if (consumed) locks.consumed(request.ephemeral!.api_id, request.pattern)
  }
}

/**
 * What makes a payment one payment, whatever its encoding (key order, whitespace, extra fields of the header's JSON):
 * the network and asset it pays, the payer (`authorization.from`) and the authorization's nonce, hex compared
 * case-insensitively. A scheme payload without an EIP-3009 authorization is identified by its canonical JSON.
 */
export function paymentIdentity(payload: PaymentPayload, requirements: PaymentRequirements): string {
  const { from, nonce } = authorizationFields(payload.payload)
  const payment = from !== undefined && nonce !== undefined ? [from, nonce] : [canonicalJson(payload.payload)]
  return [requirements.network, requirements.asset, ...payment].map((part) => part.toLowerCase()).join('|')
}
