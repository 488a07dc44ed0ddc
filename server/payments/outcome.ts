import type { UpstreamResponse } from '../upstream/index.js'

/**
 * A 402: `PAYMENT-REQUIRED` header and the same PaymentRequired as the JSON body (with the scheme's reason fields
 * when a payment was refused), and `PAYMENT-RESPONSE` when a settlement was refused.
 */
export type PaymentRequiredOutcome = {
  type: 'payment-required'
  header: string
  body: string
  paymentResponse?: string
  /** The endpoint asked for, `GET /weather/{city}` (the browser's paywall page shows it). */
  route?: string
}

/**
 * How the payment flow answers a request (see payment-flow.ts); an adapter writes it (server/gateway/index.ts: writeOutcome).
 * - `payment-required`: a 402, asking for a payment or saying why the one sent was refused;
 * - `error`: `{"error"}` with `status` (404 no route, 410 used up, 502/504 upstream or facilitator failed, 503 the
 *   facilitator cannot judge payments now, …), when retrying later helps `retryAfter` seconds, and when an upfront
 *   payment was settled before the upstream failed its `PAYMENT-RESPONSE`;
 * - `paid`: the upstream's answer, held while the payment settled, with its `PAYMENT-RESPONSE`; the adapter calls
 *   `written` once the answer is out (`delivered`: all of it was handed to the buyer's connection) or cannot be;
 * - `pass-through`: an upstream 4xx, or the answer to a wallet signed in with sign-in-with-x, to stream to the buyer as
 *   it is (nothing was settled);
 * - `buyer-gone`: the buyer left before the answer was ready; nothing was settled and nothing is written.
 */
export type PaymentOutcome =
  | PaymentRequiredOutcome
  | {
      type: 'error'
      status: number
      error: string
      retryAfter?: number
      /** A settled payment's `PAYMENT-RESPONSE` (upfront: the upstream failed after the buyer was charged). */
      paymentResponse?: string
    }
  | {
      type: 'paid'
      status: number
      headers: Record<string, string | string[]>
      body: Buffer
      /** The settlement recorded for it (none: a kept answer sent again). */
      settlementId?: string
      written: (delivered: boolean) => void
    }
  | { type: 'pass-through'; upstream: UpstreamResponse }
  | { type: 'buyer-gone' }

/** An `error` answer. */
export const failed = (status: number, error: string): PaymentOutcome => ({ type: 'error', status, error })

/** Seconds a buyer waits before paying again when the facilitator cannot judge payments (its chain restarts). */
const facilitatorRetryAfterSeconds = 1

/** A 503: the facilitator cannot judge payments now; retry in a second. */
export const unavailable = (error: string): PaymentOutcome => ({
  type: 'error',
  status: 503,
  error,
  retryAfter: facilitatorRetryAfterSeconds,
})
