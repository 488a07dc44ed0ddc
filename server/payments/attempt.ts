import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, SettleResponse } from '@x402/core/types'
import type { ApiRow } from '../db/tables.js'
import type { PaymentsDeps } from './deps.js'
import type { SettlementJournal } from '../journal/index.js'
import type { PaymentEventType } from '../payment-events.js'
import type { GatewayRoute } from './endpoint-table.js'
import type { FacilitatorResult } from './facilitator-calls.js'
import type { EventDetails, TrafficStats } from './tell.js'
import type { GatewayRequest, UpstreamProxy } from '../upstream/index.js'
import type { GatewayStore } from '../db/gateway-store.js'
import type { GatewayFaults } from './faults.js'
import type { PaymentOutcome, PaymentRequiredOutcome } from './outcome.js'
import type { BuilderCode } from './decode.js'
import type { Offer, PaidResource, Refusal } from './offer.js'

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
  /** The settlement with its signed receipt (offer-receipt), for the PAYMENT-RESPONSE of an answer delivered. */
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
