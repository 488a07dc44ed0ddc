import type { Insertable, Selectable, Updateable } from 'kysely'
import type { Environment } from '../../core/hosts.js'
import type {
  ApiKeysTable,
  EmailVerificationsTable,
  OutboxTable,
  SandboxWalletsTable,
  SiwxNoncesTable,
  UsersTable,
} from './account-tables.js'
import type { ApiDailyStatsTable, ApisTable, BazaarResourcesTable, DomainsTable, EndpointsTable } from './api-tables.js'
import type {
  BatchChannelsTable,
  BatchTransactionsTable,
  BatchVouchersTable,
  ChannelLogCursorsTable,
} from './batch-tables.js'
import type {
  EscrowActionsTable,
  EscrowPaymentsTable,
  EscrowTransactionsTable,
  ReceiverAuthorizersTable,
} from './escrow-tables.js'
import type {
  CacheVersionTable,
  ClusterProcessesTable,
  EndpointClaimsTable,
  PaymentEventCounterTable,
  PaymentEventsTable,
  PaymentIdClaimsTable,
} from './cluster-tables.js'
import type {
  ChannelActionsTable,
  PaymentAnswersTable,
  SettlementJournalTable,
  SettlementsTable,
} from './payment-tables.js'
import type { SandboxChainEpochsTable, SandboxChainOwnerTable, SandboxFaultsTable } from './sandbox-tables.js'

/**
 * Every table by name, for Kysely; the tables themselves are declared by concept in the *-tables.ts beside this file,
 * and their row types below.
 */
export type Database = {
  users: UsersTable
  email_verifications: EmailVerificationsTable
  outbox: OutboxTable
  api_keys: ApiKeysTable
  apis: ApisTable
  endpoints: EndpointsTable
  sandbox_wallets: SandboxWalletsTable
  settlements: SettlementsTable
  settlement_journal: SettlementJournalTable
  api_daily_stats: ApiDailyStatsTable
  domains: DomainsTable
  sandbox_chain_epochs: SandboxChainEpochsTable
  siwx_nonces: SiwxNoncesTable
  bazaar_resources: BazaarResourcesTable
  payment_answers: PaymentAnswersTable
  channel_actions: ChannelActionsTable
  batch_channels: BatchChannelsTable
  batch_vouchers: BatchVouchersTable
  batch_transactions: BatchTransactionsTable
  channel_log_cursors: ChannelLogCursorsTable
  cache_version: CacheVersionTable
  payment_events: PaymentEventsTable
  payment_event_counter: PaymentEventCounterTable
  sandbox_faults: SandboxFaultsTable
  sandbox_chain_owner: SandboxChainOwnerTable
  endpoint_claims: EndpointClaimsTable
  payment_id_claims: PaymentIdClaimsTable
  cluster_processes: ClusterProcessesTable
  escrow_payments: EscrowPaymentsTable
  escrow_transactions: EscrowTransactionsTable
  escrow_actions: EscrowActionsTable
  receiver_authorizers: ReceiverAuthorizersTable
}

export type UserRow = Selectable<UsersTable>
export type EmailVerificationRow = Selectable<EmailVerificationsTable>
export type ApiKeyRow = Selectable<ApiKeysTable>
export type ApiRow = Selectable<ApisTable>
export type InsertableApiRow = Insertable<ApisTable>
export type UpdateableApiRow = Updateable<ApisTable>
export type EndpointRow = Selectable<EndpointsTable>
export type OutboxRow = Selectable<OutboxTable>
export type InsertableOutboxRow = Insertable<OutboxTable>
export type SandboxWalletRow = Selectable<SandboxWalletsTable>
export type SettlementRow = Selectable<SettlementsTable>
export type SettlementJournalRow = Selectable<SettlementJournalTable>
export type DomainRow = Selectable<DomainsTable>
export type ChannelActionRow = Selectable<ChannelActionsTable>

/** The seller and environment a tenant-scoped query reads for (a control-plane principal fits). */
export type Owner = { user: { id: string }; environment: Environment }
