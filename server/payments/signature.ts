import { decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { cutText, echoedValueLimit } from '../../core/http.js'
import { eip3009PayloadSchema, shapeProblem } from '../../chain/facilitator/exact.js'

/** A decoded `PAYMENT-SIGNATURE`, or why it is not one (the message of the 402 that refuses it). */
export type DecodedPayment = { ok: true; payload: PaymentPayload } | { ok: false; error: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const refused = (error: string): DecodedPayment => ({ ok: false, error })

/**
 * The payload of a `PAYMENT-SIGNATURE` header (x402's codec), or why it is not one. Its outline is checked here (an
 * x402 v2 payload naming the requirements it accepted; the requirements are then matched field by field), and so is
 * an EIP-3009 scheme payload, field by field (the shape the facilitator checks too): a malformed one is refused with
 * a 402 saying which field is wrong, and never reaches the facilitator. A Permit2 payload (`permit2Authorization`) is
 * left to the facilitator. x402's zod schema would check the outline again on the hot path (~0.1 ms).
 */
/** Where x402 v1 code can pay offline, said wherever svc's gateway refuses v1 (issue 23: the twin speaks v1). */
export const v1CodeHint =
  "x402 v1 code pays a seller of its own on the Base Sepolia twin (svc up --twin base-sepolia) through svc's facilitator"

export function decodePayment(header: string): DecodedPayment {
  let value: unknown
  try {
    value = decodePaymentSignatureHeader(header.trim())
  } catch {
    return refused('malformed PAYMENT-SIGNATURE: expected base64 of a JSON x402 PaymentPayload')
  }
  if (!isRecord(value)) return refused('malformed PAYMENT-SIGNATURE: expected a JSON object (an x402 PaymentPayload)')
  if (value.x402Version !== 2)
    return refused(
      `PAYMENT-SIGNATURE carries x402 version ${cutText(String(JSON.stringify(value.x402Version)), echoedValueLimit)}: svc speaks x402 v2 only${value.x402Version === 1 ? `; ${v1CodeHint}` : ''}`,
    )
  if (!isRecord(value.accepted))
    return refused('malformed PAYMENT-SIGNATURE: accepted: expected the payment requirements the payment accepts')
  if (!isRecord(value.payload))
    return refused('malformed PAYMENT-SIGNATURE: payload: expected the scheme payload (signature and authorization)')
  // A batch-settlement payload (a deposit, voucher or refund on a channel) is checked by the package's scheme.
  const batch = value.accepted.scheme === 'batch-settlement'
  const problem =
    batch || 'permit2Authorization' in value.payload
      ? undefined
      : shapeProblem(eip3009PayloadSchema, value.payload, 'payload')
  if (problem) return refused(`malformed PAYMENT-SIGNATURE: ${problem}`)
  return { ok: true, payload: value as PaymentPayload }
}
