import type { x402ResourceServer } from '@x402/core/server'
import {
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type VerifyResponse,
} from '@x402/core/types'
import { cutText, echoedValueLimit, errorMessageLimit } from '../../core/http.js'

/**
 * What the facilitator made of a payment: `accepted` (with its answer), `refused` (invalid, or not settled: a 402
 * saying why), `unavailable` (it answered 503: it cannot judge payments now, e.g. its chain restarts; a 503 with
 * Retry-After), or `failed` (it could not be asked: a 502). Every `error` is bounded: the facilitator's text in it
 * is cut.
 */
export type FacilitatorResult<Response> =
  | { type: 'accepted'; response: Response }
  | {
      type: 'refused'
      error: string
      /** The scheme's reason code (`invalidReason` / `errorReason`) and its message, as the facilitator gave them. */
      reason?: string | undefined
      message?: string | undefined
      /** A refused settlement's answer (`success: false`): the `PAYMENT-RESPONSE` of the 402, as x402 sends it. */
      settled?: SettleResponse | undefined
    }
  | { type: 'unavailable'; error: string }
  | { type: 'failed'; error: string }

/** The answer to a facilitator's 503 (sent with the verdict's shape, so x402's client raises it as a Verify/SettleError). */
const unavailable = (message: string | undefined) =>
  ({
    type: 'unavailable',
    error: `the facilitator cannot judge payments right now${message ? ` (${cutText(message, echoedValueLimit)})` : ''}`,
  }) as const

/** The facilitator could not be asked (not a verdict): a 502 with its error's first line, cut. */
const failed = (what: string, error: unknown) =>
  ({
    type: 'failed',
    error: cutText(
      `the facilitator could not ${what} the payment: ${String((error as Error)?.message ?? error).split('\n')[0]}`,
      errorMessageLimit,
    ),
  }) as const

/** Verifies a payment through the API's resource server (x402's `verifyPayment`). */
export async function verifyPayment(
  server: x402ResourceServer,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): Promise<FacilitatorResult<VerifyResponse>> {
  let verified: VerifyResponse
  try {
    verified = await server.verifyPayment(payload, requirements)
  } catch (error) {
    if (!(error instanceof VerifyError)) return failed('verify', error)
    if (error.statusCode === 503) return unavailable(error.invalidMessage)
    verified = { isValid: false, invalidReason: error.invalidReason, invalidMessage: error.invalidMessage }
  }
  if (!verified.isValid)
    return {
      type: 'refused',
      error: reasonText('the payment is invalid', verified.invalidReason, verified.invalidMessage),
      reason: verified.invalidReason,
      message: verified.invalidMessage,
    }
  return { type: 'accepted', response: verified }
}

/**
 * Settles a verified payment through the API's resource server (x402's `settlePayment`); `amount` (atomic units) is
 * what an upto payment charges, when the upstream said (x402's settlement overrides).
 */
export async function settlePayment(
  server: x402ResourceServer,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  amount?: string,
): Promise<FacilitatorResult<SettleResponse>> {
  let settled: SettleResponse
  try {
    settled = await server.settlePayment(
      payload,
      requirements,
      undefined,
      undefined,
      amount === undefined ? undefined : { amount },
    )
  } catch (error) {
    if (!(error instanceof SettleError)) return failed('settle', error)
    if (error.statusCode === 503) return unavailable(error.errorMessage)
    settled = {
      success: false,
      errorReason: error.errorReason,
      errorMessage: error.errorMessage,
      transaction: '',
      network: requirements.network,
    }
  }
  if (!settled.success)
    return {
      type: 'refused',
      error: reasonText('the payment could not be settled', settled.errorReason, settled.errorMessage),
      reason: settled.errorReason,
      message: settled.errorMessage,
      settled,
    }
  return { type: 'accepted', response: settled }
}

/** `what: reason (message)`, the facilitator's reason and message cut to bounded lengths. */
export function reasonText(what: string, reason: string | undefined, message: string | undefined): string {
  const detail = message && message !== reason ? ` (${message})` : ''
  return cutText(
    `${what}: ${cutText(String(reason ?? 'unknown reason'), echoedValueLimit)}${detail}`,
    errorMessageLimit,
  )
}
