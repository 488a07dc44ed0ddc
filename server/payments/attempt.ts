/*
 * A paid request's way through the flow, as its steps share it: the request once its route is known (`Attempt`), the
 * payment it carries (`Payment`), what the steps use of the flow (`FlowContext`), and how it is answered
 * (`PaymentOutcome`, with `failed` and `unavailable`).
 */
import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { ApiRow, GatewayStore } from '../db/index.js'
import type { PaymentsDeps } from './deps.js'
import type { SettlementJournal } from '../journal/index.js'
import type { PaymentEventType } from '../payment-events.js'
import type { GatewayRoute } from './endpoint-table.js'
import type { FacilitatorResult, GatewayFaults } from './facilitator-calls.js'
import type { EventDetails, TrafficStats } from './tell.js'
import type { GatewayRequest, UpstreamProxy, UpstreamResponse } from '../upstream/index.js'
import type { BuilderCode } from './decode.js'
import type { Offer, PaidResource, PaymentRequiredOutcome, Refusal } from './offer.js'

/** One request on its way through the flow, once its route is known. */
export type Attempt = {
  request: GatewayRequest
  api: ApiRow
  route: GatewayRoute
  server: x402ResourceServer
  offer: Offer
  resource: Resource
}
export type Resource = PaidResource & { query: string }
/**
 * A payment on its way through the flow: built once in payment-flow.ts `run()`, where the payload matched one of the
 * route's requirements, and passed down to the flow that pays it (authorization, upfront or batch-settlement), the
 * settle step and the journal.
 */
export type Payment = {
  attempt: Attempt
  payload: PaymentPayload
  /** The one of the route's requirements the payload pays. */
  requirements: PaymentRequirements
  /** What makes it one payment, however it is encoded (identifier.ts `paymentIdentity`): its claim's and journal's key. */
  paymentId: string
  /** The payment's builder-code attribution (decode.ts `builderCodeOf`, checked in `run()`), if it carried one. */
  builderCode: BuilderCode | undefined
  /**
   * Who pays, once the facilitator's verify said so (authorization-flow.ts sets it; '' when nobody said); before that,
   * undefined, and the authorization's `from` stands for it.
   */
  payer: string | undefined
}
/** How a refused, failed or unavailable facilitator call is answered (`settling`: it was the settlement). */
export type Refuse = (
  outcome: Exclude<FacilitatorResult<unknown>, { type: 'accepted' }>,
  settling: boolean,
) => PaymentOutcome | Promise<PaymentOutcome>
/** A payment settled and recorded: its journal row stays open until the answer is written. */
export type Settled = {
  type: 'settled'
  response: SettleResponse
  payer: string
  journalId: string
  settlementId: string
}

export const buyerGone: PaymentOutcome = { type: 'buyer-gone' }

/** What the steps of a payment flow (settle.ts, authorization-flow.ts, signed-in-flow.ts) use of the flow that runs them. */
export type FlowContext = {
  deps: PaymentsDeps
  store: GatewayStore
  journal: SettlementJournal
  faults: GatewayFaults
  stats: TrafficStats
  proxy: UpstreamProxy
  /** The settlement with its signed receipt (offer.ts), for the PAYMENT-RESPONSE of an answer delivered. */
  withReceipt(response: SettleResponse, resourceUrl: string): Promise<SettleResponse>
  /** Publishes what happened to a request (only when its seller listens). */
  tell(type: PaymentEventType, attempt: Attempt, details: EventDetails, requirements?: PaymentRequirements): void
  /** Resolves once what was told is stored for every process (tell.ts `published`). */
  published(): Promise<void> | undefined
  /** A 402 saying why the payment sent was refused. */
  requirePayment(
    attempt: Attempt,
    error?: string,
    refusal?: Refusal & { reason?: string | undefined; payer?: string | undefined; requirements?: PaymentRequirements },
  ): PaymentRequiredOutcome | Promise<PaymentRequiredOutcome>
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
