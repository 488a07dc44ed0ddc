/**
 * The door of server/escrow/: escrow payments (x402 auth-capture) on svc's side: their records (records.ts), their
 * steps' live events (events.ts), the sellers' receiver-authorizer keys (keys.ts), the recovery of what a crash left
 * half done (action-recovery.ts) and the sweep that records buyers' reclaims (reclaims.ts). Another room imports only
 * this file (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export {
  type EscrowActionResolution,
  type EscrowRowOutcome,
  escrowJournalResolver,
  type HoldVoider,
  resolveEscrowActions,
  syncEscrowPayment,
  voidsUndeliveredHold,
} from './action-recovery.js'
export type { EscrowDeps } from './deps.js'
export { type EscrowEventStep, escrowEvent } from './events.js'
export { createEscrowServers, type EscrowServers, payEscrow, tellReclaim } from './flow.js'
export { type EscrowKeyDeps, receiverAuthorizerOf } from './keys.js'
export { type EscrowLogStep, findEscrowSteps } from './on-chain.js'
export { type RecordedReclaim, type ReclaimSweepOptions, startReclaimSweep, sweepReclaims } from './reclaims.js'
export {
  type AppliedEscrowStep,
  advanceEscrow,
  applyEscrowStep,
  type EscrowStep,
  escrowStateOf,
  type NewEscrowPayment,
  recordEscrowCollect,
} from './records.js'
export {
  escrowChainOf,
  facilitatorHoldVoider,
  lifecycleTargetOf,
  requirementsOfPayment,
  runningChainOf,
  settleRecordedLifecycle,
} from './void-hold.js'
