/**
 * The auth-capture room of chain/, its door: x402's `auth-capture` scheme (escrow payments) on the chain: the
 * commerce-payments contracts' addresses and their installation (contracts.ts), the facilitator scheme (scheme.ts:
 * collect.ts, lifecycle.ts, context.ts, reverts.ts), the escrow action journal (actions.ts) and the escrow's state of
 * a payment (on-chain.ts).
 * Other rooms import from here, never a file inside.
 */
export {
  createEscrowActionJournal,
  type EscrowAction,
  type EscrowActionJournal,
  type EscrowActionKind,
  type EscrowActionStore,
} from './actions.js'
export type { AuthCaptureDeployment } from './contracts.js'
export {
  authCaptureAddresses,
  authCaptureDeployments,
  authCaptureV1_0Escrow,
  installAuthCaptureContracts,
} from './contracts.js'
export {
  type PaymentEvent,
  type PaymentEventName,
  paymentEventNames,
  readPaymentEvents,
  readPaymentState,
} from './on-chain.js'
export {
  type AuthCaptureFacilitatorScheme,
  authCaptureSchemeName,
  createAuthCaptureScheme,
} from './scheme.js'
