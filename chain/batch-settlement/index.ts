/**
 * The batch-settlement room of chain/, its door: the facilitator side of x402's batch-settlement scheme
 * (scheme.ts, shape.ts), its contracts (contracts.ts), and its actions on chain (channel-actions.ts: the journal of
 * what the facilitator sends; actions-on-chain.ts: whether one landed; withdrawals.ts: the payer's withdrawals).
 * Other rooms import from here, never a file inside.
 */
export { findChannelActionOnChain, type ActionOnChain } from './actions-on-chain.js'
export {
  channelActionDetailOf,
  createChannelActionJournal,
  type ChannelAction,
  type ChannelActionDetail,
  type ChannelActionJournal,
  type ChannelActionKind,
  type ChannelActionStore,
} from './channel-actions.js'
export { batchSettlementAddresses, installBatchSettlementContracts } from './contracts.js'
export {
  batchActionOf,
  batchSettlementSchemeName,
  createBatchSettlementScheme,
  depositWindowReason,
  isChannelAction,
  type BatchAction,
} from './scheme.js'
export { batchSettlementPayloadSchema } from './shape.js'
export { readWithdrawals, type Withdrawal } from './withdrawals.js'
