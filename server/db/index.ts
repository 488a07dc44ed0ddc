/**
 * The door of server/db/: what the other rooms use, named. Another room imports only this file
 * (test/architecture/layers.test.ts; written by test/architecture/doors.ts); the files inside import each other
 * directly.
 */
export { dailyTraffic } from './api-daily-stats.js'
export { findApiKeyCaller, findOwnedApiKey, insertApiKey, listApiKeys, revokeApiKey, touchApiKey } from './api-keys.js'
export type { Accept } from './api-tables.js'
export { assertSlugFree, deleteApi, findOwnedApi, insertApi, listApis, slugExists, updateApi } from './apis.js'
export {
  channelTransactions,
  channelVouchers,
  dailyVoucherRevenue,
  findChannel,
  listChannels,
} from './batch-channels.js'
export type {
  BatchChannelRow,
  BatchChannelsTable,
  BatchTransactionKind,
  BatchTransactionRow,
  BatchVoucherRow,
  BatchVouchersTable,
} from './batch-tables.js'
export {
  chainOwnerChannel,
  chainOwnerLockName,
  type ChainOwnerRow,
  clearChainOwner,
  publishChainEpoch,
  publishChainOwner,
  readChainOwner,
} from './chain-owner.js'
export { actionOf, listPendingChannelActions, saveChannelAction } from './channel-actions.js'
export { channelLogCursor, saveChannelLogCursor } from './channel-log-cursors.js'
export {
  type ClusterProcess,
  deleteClusterProcess,
  listClusterProcesses,
  saveClusterProcess,
} from './cluster-processes.js'
export { databaseUnavailable, databaseUnreachable, quietWhileUnreachable } from './database-errors.js'
export type { DatabaseTarget } from './database-url.js'
export { connectionOf, restoreDatabaseSnapshot, writeDatabaseSnapshot } from './database.js'
export { forUpdate, insertionOrder, sharedByProcesses } from './dialect.js'
export {
  deleteDomain,
  findDomain,
  hostnameTaken,
  insertDomain,
  listDomains,
  listVerifiedHostnames,
  markDomainVerified,
} from './domains.js'
export { findEmailVerification, insertEmailVerification } from './email-verifications.js'
export { claimEndpoint, releaseEndpoint, usedUpEndpoints } from './endpoint-claims.js'
export {
  countEndpoints,
  deleteEndpoint,
  existingRoutes,
  findEndpoint,
  insertEndpoint,
  insertNewEndpoints,
  listEndpoints,
  purgeExpired,
  routeExists,
  routeKey,
  updateEndpoint,
} from './endpoints.js'
export {
  createEscrowActionStore,
  escrowActionFundedBy,
  escrowActionOf,
  listEscrowActions,
  listPendingEscrowActions,
  type PendingEscrowAction,
  saveEscrowAction,
} from './escrow-actions.js'
export {
  type EscrowDatabase,
  escrowDb,
  type EscrowPaymentChange,
  type EscrowPaymentFilter,
  escrowPaymentsOfSettlements,
  escrowPaymentsPastCaptureDeadline,
  findEscrowPayment,
  findEscrowPaymentByHash,
  findOwnedEscrowPayment,
  insertEscrowPayment,
  linkEscrowSettlement,
  linkEscrowSettlementIn,
  listEscrowPayments,
  listEscrowTransactions,
  markEscrowUndelivered,
  recordEscrowTransaction,
  recordEscrowTransactionIn,
  setEscrowChainView,
  settlementAmountOf,
} from './escrow-payments.js'
export type {
  EscrowActor,
  EscrowAmountColumn,
  EscrowColumns,
  EscrowJournalEntry,
  EscrowPaymentRow,
  EscrowState,
  EscrowTransactionKind,
  EscrowTransactionRow,
  ReceiverAuthorizerRow,
} from './escrow-tables.js'
export { faultRecord } from './faults.js'
export type { GatewayStore, TrafficRow } from './gateway-store.js'
export { type Notifications, notificationsOf, notifyPayloadLimit } from './notifications.js'
export { openGatewayStore } from './open-gateway-store.js'
export type { OpenedDatabase } from './opened-database.js'
export { insertOutboxMail, listOutbox } from './outbox.js'
export { type OwnWrites, runOn } from './own-write.js'
export { type PaymentIdClaims, postgresPaymentIdClaims } from './payment-id-claims.js'
export type { JournalState } from './payment-tables.js'
export { ownerLockHeld, type ProcessOwner, processOwnerOf } from './process-owner.js'
export { findReceiverAuthorizer, insertReceiverAuthorizerIfAbsent } from './receiver-authorizers.js'
export { findLatestChainEpoch, insertChainEpoch, setChainClockOffset } from './sandbox-chain-epochs.js'
export {
  findSandboxWallet,
  insertSandboxWalletIfAbsent,
  listSandboxWalletAddresses,
  replaceSandboxWallet,
} from './sandbox-wallets.js'
export {
  abandonJournalRow,
  claimJournalRow,
  deleteJournalRow,
  journalHolderOf,
  listJournalRows,
  markJournalUndelivered,
  recordJournalSettlement,
  releaseJournalClaim,
} from './settlement-journal.js'
export {
  countUniquePayers,
  dailyRevenue,
  listSettlements,
  type SettlementCursor,
  type SettlementFilter,
} from './settlements.js'
export type {
  ApiKeyRow,
  ApiRow,
  Database,
  DomainRow,
  EndpointRow,
  SandboxWalletRow,
  SettlementJournalRow,
  SettlementRow,
  UpdateableApiRow,
  UserRow,
} from './tables.js'
export { emailTaken, findUserByEmail, findUserById, insertUser, markEmailVerified } from './users.js'
