import type { Generated, Insertable, Selectable, Updateable } from 'kysely'
import type { Environment } from '../../core/hosts.js'
import type {
  BatchChannelsTable,
  BatchTransactionsTable,
  BatchVouchersTable,
  ChannelLogCursorsTable,
} from './batch-tables.js'

export type UsersTable = {
  id: string
  email: string
  password_hash: string
  password_salt: string
  email_verified_at: string | null
  created_at: string
}

export type EmailVerificationsTable = {
  token: string
  user_id: string
  expires_at: string
  used_at: string | null
  created_at: string
}

/** Mails the control plane "sent": nothing leaves the machine; the CLI, dashboard and a loopback route read them. */
export type OutboxTable = {
  id: Generated<number>
  to_email: string
  subject: string
  body: string
  /** The verification token the mail carries, for tools that finish the flow. */
  token: string | null
  created_at: string
}

export type ApiKeysTable = {
  id: string
  user_id: string
  name: string
  environment: Environment
  /** The visible start of the secret (`svc_sandbox_ab12cd34`), to tell keys apart. */
  prefix: string
  /** sha256 of the whole secret; the secret itself is never stored. */
  key_hash: string
  /** JSON array of scope names. */
  scopes: string
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export type ApisTable = {
  id: string
  user_id: string
  environment: Environment
  name: string
  slug: string
  upstream_base_url: string
  pay_to_mode: string
  pay_to_address: string | null
  discovery_guidance: string | null
  discovery_contact_email: string | null
  openapi_version: string
  created_at: string
  updated_at: string
}

/** One accept option of an endpoint as stored (snake_case, as the control plane speaks). */
export type Accept = {
  /** `exact`: `amount` is the price; `upto`: `amount` is the maximum, the upstream's Settlement-Overrides says what is charged. */
  scheme: 'exact' | 'upto' | 'batch-settlement'
  network: string
  asset: string
  amount: string
  max_timeout_seconds: number
  extra?: Record<string, unknown>
}

export type EndpointsTable = {
  id: string
  api_id: string
  method: string
  path_pattern: string
  /** JSON array of accept options, snake_case as the API speaks. */
  accepts: string
  request_schema: string | null
  response_schema: string | null
  schema_source: 'inferred' | 'openapi' | 'manual'
  enabled: number
  description: string | null
  /** 1: a payment without a payment-identifier id is refused (x402's payment-identifier `required`). */
  payment_identifier_required: Generated<number>
  ttl_seconds: number | null
  expires_at: string | null
  created_at: string
  updated_at: string
  /** Sign-in-with-x: how long a payment lets its payer sign in instead of paying again, in seconds; null: off. */
  siwx_access_seconds: number | null
}

export type SandboxWalletsTable = {
  user_id: string
  address: string
  /** AES-256-GCM of the private key under the install's wallet key: iv.tag.ciphertext, base64url. */
  encrypted_private_key: string
  created_at: string
}

/** The nonce of each sign-in-with-x message served: a signed message is good once (kept until it expires). */
export type SiwxNoncesTable = {
  nonce: string
  expires_at: string
}

/** One row per settled payment, written before the paid answer completes. */
export type SettlementsTable = {
  id: string
  api_id: string
  /** null once the endpoint is gone (ephemeral endpoints are removed after their first settlement). */
  endpoint_id: string | null
  /** The seller (owner of the API), for tenant-scoped queries. */
  user_id: string
  environment: Environment
  network: string
  asset: string
  /** Atomic units, a decimal string. */
  amount: string
  payer: string
  pay_to: string
  transaction: string
  method: string
  path: string
  created_at: string
  /** The epoch of the Sandbox chain it settled on (chain/epoch.ts); '' for production and for older records. */
  chain_epoch: string
  /**
   * 1 when the paid answer was written to the buyer; 0 when the buyer was charged without getting it (the buyer's
   * connection went away after the settlement, or svc stopped before answering: recovered from the journal).
   */
  delivered: Generated<number>
  /** The payment's `builder-code` extension (ERC-8021 attribution), JSON `{a, w, s}`; null without one. */
  builder_code: string | null
}

/**
 * A settlement in progress (server/journal/journal.ts): written before the settlement is sent, given its
 * `settlement_id` once recorded, removed once the answer was written. A row left behind by a process that died is
 * resolved at the next start against the chain (was the authorization used? by which transaction?).
 */
export type SettlementJournalTable = {
  id: string
  /** The payment's identity (server/gateway/payment-locks.ts `paymentIdentity`): one row per payment. */
  payment_id: string
  api_id: string
  endpoint_id: string
  /** 1 for an ephemeral endpoint (removed with its first settlement). */
  ephemeral: number
  user_id: string
  environment: Environment
  network: string
  asset: string
  amount: string
  payer: string
  pay_to: string
  /**
   * How the payment moves the money: an EIP-3009 authorization or a Permit2 permit (exact via Permit2, upto); null on
   * rows written before svc recorded it (one with a nonce is EIP-3009's).
   */
  transfer_method: 'eip3009' | 'permit2' | null
  /**
   * The authorization's nonce (EIP-3009: 0x hex; Permit2: decimal) and validBefore or deadline (seconds, decimal); null
   * for another kind of payload.
   */
  nonce: string | null
  valid_before: string | null
  method: string
  path: string
  chain_epoch: string
  /** The settlement recorded for it; null until the facilitator settled. */
  settlement_id: string | null
  created_at: string
  /** The process that wrote it (a random id per boot, server/db/process-owner.ts); null on rows written before. */
  owner: string | null
  /**
   * A block the settlement cannot be older than (decimal): a production row's, read from the network's RPC (svc serve
   * --rpc); null elsewhere (the Sandbox chain is read from its start).
   */
  from_block: string | null
  /**
   * `claimed` (held, nothing sent), `settling`, `abandoned` (left to the sweeper): migration 2026_11_27_03; or
   * `refused`: the facilitator answered that the settlement failed for good (journal.ts `finalRefusal`), so an
   * authorization the chain shows unused is freed at once, without waiting for its validBefore.
   */
  state: JournalState
  /**
   * A payment channel's deposit or refund (x402 batch-settlement), JSON (server/journal/channel-journal.ts): what
   * tells on the chain whether it landed; null for every other payment.
   */
  channel_action: string | null
}

export type JournalState = 'claimed' | 'settling' | 'abandoned' | 'refused'

/** The Sandbox chains this data dir has seen, the newest last (see chain/epoch.ts). */
export type SandboxChainEpochsTable = {
  epoch: string
  seq: number
  started_at: string
  /** Why a new chain: `new data dir`, `fresh chain`, `chain state was reset`, `anvil exited` … */
  reason: string
  /** How far svc's clock is ahead of the machine's on this chain (`svc time advance`), in milliseconds. */
  clock_offset_ms: Generated<number>
}

/** Gateway traffic per API and UTC day: every request, the 402s answered, the paid requests served. */
export type ApiDailyStatsTable = {
  api_id: string
  user_id: string
  environment: Environment
  /** YYYY-MM-DD (UTC). */
  day: string
  requests: number
  payment_required: number
  paid_requests: number
}

export type DomainsTable = {
  id: string
  api_id: string
  /** Lower-case hostname, unique across all APIs. */
  hostname: string
  verification_token: string
  status: 'pending' | 'verified'
  verified_at: string | null
  created_at: string
}

/** The facilitator's bazaar catalog: one row per resource and method (or MCP tool), its latest listing. */
export type BazaarResourcesTable = {
  /** `{type} {method or tool} {resource URL}` */
  key: string
  type: string
  /** Lowercase, for the `payTo` filter. */
  pay_to: string
  scheme: string
  network: string
  /** The listed item as JSON (`GET /discovery/resources`' shape). */
  item: string
  /** Milliseconds since the epoch: `lastUpdated`, and the order of eviction. */
  updated_at: number
}

/** A paid answer kept for a buyer's payment-identifier (server/gateway/payment-identifier.ts). */
export type PaymentAnswersTable = {
  api_id: string
  /** The payer's address, lower-case. */
  payer: string
  /** The buyer's payment-identifier `id`. */
  payment_id: string
  /** What was paid for (method, path and query, the accepted requirements): a retry must ask the same. */
  request_key: string
  /** The payment itself (paymentIdentity): the same payment resent needs no new verify. */
  payment_key: string
  settlement_id: string
  status: number
  /** The answer's headers, JSON. */
  headers: string
  /** The answer's body; null when it was larger than the gateway keeps. */
  body: Buffer | null
  body_bytes: number
  created_at: string
}

/** A batch-settlement action the facilitator sent (chain/facilitator/channel-actions.ts `ChannelAction`). */
export type ChannelActionsTable = {
  id: string
  network: string
  chain_epoch: string
  /** `deposit`, `claim`, `settle` or `refund`. */
  kind: string
  receiver: string
  token: string
  payer: string | null
  /** The channel of a deposit or a refund (a claim's first), lowercase; null for a settle. */
  channel_id: string | null
  /** `ChannelActionDetail` as JSON: what tells on the chain whether it landed. */
  detail: string
  from_block: string
  /** `pending`, `settled` or `failed`. */
  state: string
  transaction: string | null
  amount: string | null
  error: string | null
  created_at: string
  resolved_at: string | null
  /** The process that journaled it (server/db/process-owner.ts); null on rows written before. */
  owner: string | null
}
/** PostgreSQL only (migration 2026_11_26_07): the label of the gateway's caches, moved by triggers on every write. */
export type CacheVersionTable = { id: number; version: number }

/** PostgreSQL only: the live stream's replay ring shared by every process (server/cluster-payment-events.ts). */
export type PaymentEventsTable = {
  /** Cluster-wide, in commit order, without holes: from `payment_event_counter`. */
  id: number
  user_id: string
  /** The event's JSON without its id. */
  event: string
}

/** PostgreSQL only: the last payment event id handed out (one row, id 1). */
export type PaymentEventCounterTable = { id: number; last: number }

/** PostgreSQL only (migration 2026_11_27_06): the Sandbox's injected faults, shared by every process (chain/faults). */
/** The team Sandbox's chain owner (PostgreSQL; migration 2026_11_28_01): one row, id 1. */
export type SandboxChainOwnerTable = {
  id: number
  /** The owning process's id (server/db/process-owner.ts). */
  owner: string
  /** Where the other processes reach it (svc serve --advertise-url). */
  url: string
  /** The chain's epoch; null while the owner starts it. */
  epoch: string | null
  started_at: string
}

export type SandboxFaultsTable = {
  id: string
  seq: Generated<number>
  kind: string
  reason: string | null
  delay_ms: number | null
  status: number | null
  drop: boolean
  api: string | null
  times: number | null
  remaining: number | null
  hits: Generated<number>
  created_at: string
}

/**
 * PostgreSQL only (migration 2026_11_27_03): the payment holding a one-time endpoint, then its tombstone
 * (server/gateway/postgres-payment-claims.ts).
 */
export type EndpointClaimsTable = {
  endpoint_id: string
  api_id: string
  method: string
  path_pattern: string
  /** The process owner (server/db/process-owner.ts) whose request holds it. */
  claimed_by: string
  claimed_until: Date
  /** When its payment settled and the endpoint was deleted; null while a payment holds it. */
  deleted_at: Date | null
}

/** PostgreSQL only (migration 2026_11_28_05): a payment-identifier id in flight (server/db/payment-id-claims.ts). */
export type PaymentIdClaimsTable = {
  api_id: string
  payer: string
  payment_id: string
  /** What the id's first request asks for (payment-identifier.ts): the same again is "in flight", another is reuse. */
  request_key: string
  /** The process owner (server/db/process-owner.ts) whose request holds it. */
  claimed_by: string
  claimed_until: Date
}

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
