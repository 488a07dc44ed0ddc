/**
 * The door of server/payments/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export {
  type Attempt,
  buyerGone,
  failed,
  type FlowContext,
  type Payment,
  type PaymentOutcome,
  unavailable,
} from './attempt.js'
export { payAuthorization } from './authorization-flow.js'
export { builderCodeOf, decodePayment, normalizePath, v1CodeHint } from './decode.js'
export type { PaymentsDeps } from './deps.js'
export { createEndpointTable, type GatewayRoute } from './endpoint-table.js'
export {
  createGatewayFaults,
  createResourceServers,
  type ExtraScheme,
  FacilitatorUnavailableError,
  judgeSettlement,
  type SettlePhase,
  type FacilitatorResult,
  type ResourceServers,
  settlePayment,
  verifyPayment,
} from './facilitator-calls.js'
export { createPaymentIdentifiers, payClaimed, paymentIdentity, retryLater } from './identifier.js'
export {
  cachedPaymentRequired,
  createOfferReceipts,
  offerFor,
  paymentRequired,
  type PaymentRequiredOutcome,
  reasonFields,
  type Refusal,
} from './offer.js'
export { journalEntryOf, recordSettlement, settlementRow, takeChargeOverride } from './settle.js'
export { createSignIns } from './sign-in-with-x.js'
export { serveSignedIn } from './signed-in-flow.js'
export { createFlowEvents, createTrafficStats, type EventDetails } from './tell.js'
