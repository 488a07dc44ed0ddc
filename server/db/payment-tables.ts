/** The paid requests' record: settlements, the journal of those in flight, kept answers, channel actions. */
import type { Generated } from 'kysely'
import type { Environment } from '../../core/hosts.js'

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
  /** The payment's identity (server/payments/identifier.ts `paymentIdentity`): one row per payment. */
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
   * A payment channel's deposit or refund (x402 batch-settlement), JSON (server/channels/journal.ts): what
   * tells on the chain whether it landed; null for every other payment.
   */
  channel_action: string | null
}

export type JournalState = 'claimed' | 'settling' | 'abandoned' | 'refused'

/** A paid answer kept for a buyer's payment-identifier (server/payments/identifier.ts). */
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

/** A batch-settlement action the facilitator sent (chain/batch-settlement/channel-actions.ts `ChannelAction`). */
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
