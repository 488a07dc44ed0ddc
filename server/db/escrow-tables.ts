import type { Selectable } from 'kysely'
import type { Environment } from '../../core/hosts.js'

/**
 * An escrow payment's state (x402 auth-capture), derived from its amounts (server/escrow/records.ts `escrowStateOf`):
 * `authorized` while something is capturable; `captured` (all or part, nothing left held); `charged` (the
 * authorization flow's terminal charge); `voided` (the hold went back without a capture); `refunded` (everything
 * captured went back); `reclaimed` (the buyer took the hold back after the capture deadline).
 */
export type EscrowState = 'authorized' | 'captured' | 'charged' | 'voided' | 'refunded' | 'reclaimed'

/** What an escrow transaction did. */
export type EscrowTransactionKind = 'authorize' | 'charge' | 'capture' | 'void' | 'refund' | 'reclaim'

/**
 * Who moved the money: svc's gateway in the paid request, the seller (/payments), the buyer (a reclaim), or svc's
 * recovery (at start, from the chain).
 */
export type EscrowActor = 'gateway' | 'seller' | 'payer' | 'recovery'

/**
 * One escrow payment (x402 auth-capture) to a seller's API, per chain epoch and `paymentInfoHash` (the escrow's id of
 * it): what it authorized, captured, voided, refunded and reclaimed (atomic units, decimal strings), the escrow's
 * view of it as last read, its deadlines (unix seconds) and the `PaymentInfo` that the lifecycle payloads name.
 */
export type EscrowPaymentsTable = {
  /** `esc_…` */
  id: string
  /** The Sandbox chain epoch ('' in production). */
  chain_epoch: string
  /** The escrow's `getHash(paymentInfo)`, lower-case 0x hex. */
  payment_info_hash: string
  user_id: string
  api_id: string
  endpoint_id: string | null
  /** The settlement record whose amount is captured − refunded. */
  settlement_id: string | null
  environment: Environment
  network: string
  asset: string
  payer: string
  pay_to: string
  method: string
  path: string
  flow: 'escrow' | 'authorization'
  /** Escrow flow only. */
  capture_mode: 'sync' | 'deferred' | null
  transfer_method: 'eip3009' | 'permit2'
  /** The AuthCaptureEscrow contract. */
  escrow: string
  /** PaymentInfo.operator: svc's facilitator's operator account. */
  operator: string
  /** The seller's key svc keeps (server/db/receiver-authorizers.ts). */
  receiver_authorizer: string
  /** The escrow's `PaymentInfo`, JSON (x402's wire spelling: core/auth-capture/types.ts). */
  payment_info: string
  /** The buyer's saltNonce (a bound salt); null when the salt is not bound. */
  salt_nonce: string | null
  authorized: string
  captured: string
  fees: string
  voided: string
  refunded: string
  reclaimed: string
  /** `paymentState(hash)` as last known: what can still be captured, and refunded. */
  capturable: string
  refundable: string
  state: EscrowState
  pre_approval_expiry: number
  capture_deadline: number
  refund_deadline: number
  /** 1 when the paid answer reached the buyer; 0 when it did not (a crash, the buyer gone). */
  delivered: number
  created_at: string
  updated_at: string
}

/**
 * The amount columns of an escrow payment: what its steps moved, and the escrow's view of what is left (capturable,
 * refundable). Its steps change them (server/escrow/records.ts `advanceEscrow`), its state is derived from them; a
 * collect writes them at zero.
 */
export type EscrowAmountColumn =
  | 'authorized'
  | 'captured'
  | 'fees'
  | 'voided'
  | 'refunded'
  | 'reclaimed'
  | 'capturable'
  | 'refundable'

/**
 * An escrow transaction on chain, never changed once written: one per (chain epoch, transaction, kind), so recording
 * one step twice (the gateway and recovery, or two processes) writes one row. A capture and the void of its rest sent
 * in one /settle are two transactions, two rows.
 */
export type EscrowTransactionsTable = {
  /** `etx_…` */
  id: string
  escrow_payment_id: string
  chain_epoch: string
  kind: EscrowTransactionKind
  amount: string
  fee_amount: string
  transaction: string
  actor: EscrowActor
  created_at: string
}

/**
 * The facilitator's journal of the escrow transactions it sends (plan §1.9, as `channel_actions`): written `pending`
 * before the transaction is sent and finished `settled` or `failed`, so one under way when svc died is resolved from
 * the chain at the next start (server/escrow/action-recovery.ts).
 */
export type EscrowActionsTable = {
  id: string
  network: string
  chain_epoch: string
  /** `authorize`, `charge`, `capture`, `void`, `refund` (its funding transfer included). */
  kind: string
  /** The escrow's id of the payment (lower-case 0x hex): its `paymentState` and Payment* logs say what landed. */
  payment_info_hash: string
  escrow: string
  /** The operator that sent it (svc's relayer account 1). */
  operator: string
  payer: string
  receiver: string
  token: string
  /** The escrow's PaymentInfo, JSON (x402's wire spelling). */
  payment_info: string
  /** What the action asked to move (a void's: what was held when it was judged). */
  requested: string
  /** The chain's block when the action began: its logs are looked for from there (decimal). */
  from_block: string
  /** `pending`, `settled` or `failed`. */
  state: string
  transaction: string | null
  /** A refund's funding transfer (receiver → operator), sent before the refund. */
  funding_transaction: string | null
  /** What moved, once settled. */
  amount: string | null
  error: string | null
  created_at: string
  resolved_at: string | null
  /** The process that journaled it (server/db/process-owner.ts). */
  owner: string | null
}

/**
 * The key svc keeps for a seller to sign its escrow payments' captures, voids and refunds (`receiverAuthorizer`):
 * made on first use, never rotated (a payment's salt commits to its address), its private key encrypted like the
 * Sandbox wallet's (server/data-dir `encryptSecret` with the install's wallet key). Never logged, never answered.
 */
export type ReceiverAuthorizersTable = {
  user_id: string
  address: string
  encrypted_private_key: string
  created_at: string
}

/**
 * The escrow columns of two older tables (migration 2026_12_08_00): `settlements.escrow_id` (the escrow payment a
 * settlement is the record of; its amount is captured − refunded) and `settlement_journal.escrow` (a collect in
 * flight, JSON {@link EscrowJournalEntry}). They are declared apart from those tables' types so the rows the other
 * schemes write stay as they are; server/db/escrow-payments.ts `escrowDb` reads and writes them.
 */
export type EscrowColumns = {
  settlements: { escrow_id: string | null }
  settlement_journal: { escrow: string | null }
}

/**
 * What the gateway journals with an escrow collect (`settlement_journal.escrow`): enough to find it on chain (its
 * hash) and to write its payment record when it landed but svc died before recording it.
 */
export type EscrowJournalEntry = {
  kind: 'authorize' | 'charge'
  paymentInfoHash: string
  /** core/auth-capture/types.ts `PaymentInfo`. */
  paymentInfo: Record<string, unknown>
  saltNonce: string | null
  captureMode: 'sync' | 'deferred' | null
  escrow: string
  receiverAuthorizer: string
}

export type EscrowPaymentRow = Selectable<EscrowPaymentsTable>
export type EscrowTransactionRow = Selectable<EscrowTransactionsTable>
export type EscrowActionRow = Selectable<EscrowActionsTable>
export type ReceiverAuthorizerRow = Selectable<ReceiverAuthorizersTable>
