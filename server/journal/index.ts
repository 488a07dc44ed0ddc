/**
 * The door of server/journal/: what the other rooms of server/ use, named. Another room imports only this file
 * (test/architecture/layers.test.ts); the files inside import each other directly.
 */
export {
  type Claim,
  type ClaimRefused,
  type ClaimRequest,
  createPaymentLocks,
  endpointInUse,
  paymentInUse,
  type PaymentLocks,
  usedUpMessage,
} from './claims.js'
export {
  createSettlementJournal,
  type JournaledChannelAction,
  type JournalEntry,
  type SettlementJournal,
  type SettlementJournalOptions,
} from './journal.js'
export { markMissingSettlements, missingEpoch } from './missing-settlements.js'
export { createProductionChains, defaultMaxLogBlocks, parseRpcUrls } from './production-chains.js'
export {
  type ChannelRowResolver,
  findSettlementOf,
  type ResolveJournalOptions,
  resolveSettlementJournal,
} from './recovery.js'
export type { JournalChainReader, JournalDeps } from './deps.js'
