import type { Kysely } from 'kysely'
import { forUpdate } from './dialect.js'
import type {
  EscrowColumns,
  EscrowAmountColumn,
  EscrowPaymentRow,
  EscrowPaymentsTable,
  EscrowState,
  EscrowTransactionRow,
} from './escrow-tables.js'
import type { Database, Owner } from './tables.js'

/** A database that sees the escrow columns of settlements and settlement_journal (escrow-tables.ts `EscrowColumns`). */
export type EscrowDatabase = Database & EscrowColumns

/** `db` with the escrow columns in its type: the same connection, `settlements.escrow_id` and `settlement_journal.escrow` readable. */
export const escrowDb = (db: Kysely<Database>): Kysely<EscrowDatabase> => db.withTables<EscrowColumns>()

/** The row as the code sees it: PostgreSQL answers its bigint deadlines as strings, SQLite as numbers. */
function paymentOf(row: EscrowPaymentRow): EscrowPaymentRow {
  return {
    ...row,
    pre_approval_expiry: Number(row.pre_approval_expiry),
    capture_deadline: Number(row.capture_deadline),
    refund_deadline: Number(row.refund_deadline),
    delivered: Number(row.delivered),
  }
}

/**
 * Writes a new escrow payment unless one of its chain epoch and hash is there already (the gateway and recovery, or
 * two processes, recording one collect): answers the row that is kept, `created` when it is this one.
 */
export async function insertEscrowPayment(
  db: Kysely<Database>,
  row: EscrowPaymentRow,
): Promise<{ payment: EscrowPaymentRow; created: boolean }> {
  const inserted = await db
    .insertInto('escrow_payments')
    .values(row)
    .onConflict((oc) => oc.columns(['chain_epoch', 'payment_info_hash']).doNothing())
    .executeTakeFirst()
  const kept = await findEscrowPaymentByHash(db, row.chain_epoch, row.payment_info_hash)
  if (!kept) throw new Error(`the escrow payment ${row.payment_info_hash} vanished right after it was written`)
  return { payment: kept, created: Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0 && kept.id === row.id }
}

export async function findEscrowPayment(db: Kysely<Database>, id: string): Promise<EscrowPaymentRow | undefined> {
  const row = await db.selectFrom('escrow_payments').selectAll().where('id', '=', id).executeTakeFirst()
  return row && paymentOf(row)
}

/** The payment of a chain epoch's paymentInfoHash (lower-case 0x hex). */
export async function findEscrowPaymentByHash(
  db: Kysely<Database>,
  chainEpoch: string,
  paymentInfoHash: string,
): Promise<EscrowPaymentRow | undefined> {
  const row = await db
    .selectFrom('escrow_payments')
    .selectAll()
    .where('chain_epoch', '=', chainEpoch)
    .where('payment_info_hash', '=', paymentInfoHash.toLowerCase())
    .executeTakeFirst()
  return row && paymentOf(row)
}

/** The owner's payment `id` (its seller and environment); undefined for another seller's. */
export async function findOwnedEscrowPayment(
  db: Kysely<Database>,
  owner: Owner,
  id: string,
): Promise<EscrowPaymentRow | undefined> {
  const row = await db
    .selectFrom('escrow_payments')
    .selectAll()
    .where('id', '=', id)
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .executeTakeFirst()
  return row && paymentOf(row)
}

/** Which of the owner's escrow payments a listing reads. */
export type EscrowPaymentFilter = {
  apiId?: string | undefined
  state?: EscrowState | undefined
  /** Newest first, after this one (created_at, then id). */
  cursor?: { createdAt: string; id: string } | undefined
  limit?: number | undefined
}

/** Up to `limit` (100) of the owner's escrow payments matching `filter`, newest first. */
export async function listEscrowPayments(
  db: Kysely<Database>,
  owner: Owner,
  filter: EscrowPaymentFilter = {},
): Promise<EscrowPaymentRow[]> {
  let query = db
    .selectFrom('escrow_payments')
    .selectAll()
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
  if (filter.apiId !== undefined) query = query.where('api_id', '=', filter.apiId)
  if (filter.state !== undefined) query = query.where('state', '=', filter.state)
  const cursor = filter.cursor
  if (cursor)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]),
    )
  const rows = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 100)
    .execute()
  return rows.map(paymentOf)
}

/** The escrow payments of settlements (records out: `settlementRecord`'s escrow part), by settlement id. */
export async function escrowPaymentsOfSettlements(
  db: Kysely<Database>,
  settlementIds: readonly string[],
): Promise<Map<string, EscrowPaymentRow>> {
  if (settlementIds.length === 0) return new Map()
  const rows = await db.selectFrom('escrow_payments').selectAll().where('settlement_id', 'in', settlementIds).execute()
  return new Map(rows.map((row) => [row.settlement_id!, paymentOf(row)]))
}

/** The order of a payment's steps recorded in one millisecond (a sync capture and the void of its rest). */
const stepOrder: Record<string, number> = { authorize: 0, charge: 0, capture: 1, void: 2, reclaim: 3, refund: 4 }

/** A payment's transactions, oldest first (those of one instant in the order the escrow allows them). */
export async function listEscrowTransactions(db: Kysely<Database>, paymentId: string): Promise<EscrowTransactionRow[]> {
  const rows = await db
    .selectFrom('escrow_transactions')
    .selectAll()
    .where('escrow_payment_id', '=', paymentId)
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return rows.sort((a, b) =>
    a.created_at < b.created_at
      ? -1
      : a.created_at > b.created_at
        ? 1
        : (stepOrder[a.kind] ?? 9) - (stepOrder[b.kind] ?? 9),
  )
}

/** What a step changes in a payment (server/escrow/records.ts computes it from the payment as it is). */
export type EscrowPaymentChange = Partial<Pick<EscrowPaymentsTable, EscrowAmountColumn | 'state' | 'delivered'>>

/**
 * Records one escrow transaction of a payment, in one database transaction: the transaction's row, unless one of its
 * chain epoch, hash and kind is there (then nothing changes: `recorded` false); the payment as `advance` moves it
 * (given the payment as it is, locked on PostgreSQL); and the payment's settlement, whose amount is captured −
 * refunded. Answers the payment after it.
 */
export async function recordEscrowTransaction(
  db: Kysely<Database>,
  transaction: EscrowTransactionRow,
  advance: (payment: EscrowPaymentRow) => EscrowPaymentChange,
): Promise<{ payment: EscrowPaymentRow; recorded: boolean }> {
  return escrowDb(db)
    .transaction()
    .execute((trx) => recordEscrowTransactionIn(trx, transaction, advance))
}

/** {@link recordEscrowTransaction} inside the caller's database transaction `trx` (several steps in one commit). */
export async function recordEscrowTransactionIn(
  trx: Kysely<EscrowDatabase>,
  transaction: EscrowTransactionRow,
  advance: (payment: EscrowPaymentRow) => EscrowPaymentChange,
): Promise<{ payment: EscrowPaymentRow; recorded: boolean }> {
  const locked = await forUpdate(trx)(
    trx.selectFrom('escrow_payments').selectAll().where('id', '=', transaction.escrow_payment_id),
  ).executeTakeFirst()
  if (!locked) throw new Error(`no escrow payment ${transaction.escrow_payment_id} to record a transaction of`)
  const payment = paymentOf(locked)
  const inserted = await trx
    .insertInto('escrow_transactions')
    .values(transaction)
    .onConflict((oc) => oc.columns(['chain_epoch', 'transaction', 'kind']).doNothing())
    .executeTakeFirst()
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) return { payment, recorded: false }
  const change = advance(payment)
  const next = { ...payment, ...change, updated_at: transaction.created_at }
  await trx
    .updateTable('escrow_payments')
    .set({ ...change, updated_at: next.updated_at })
    .where('id', '=', payment.id)
    .execute()
  if (payment.settlement_id !== null)
    await trx
      .updateTable('settlements')
      .set({ amount: settlementAmountOf(next) })
      .where('id', '=', payment.settlement_id)
      .execute()
  return { payment: next, recorded: true }
}

/** A payment's settlement amount: what it captured less what it refunded (atomic units). */
export const settlementAmountOf = (payment: Pick<EscrowPaymentRow, 'captured' | 'refunded'>): string =>
  (BigInt(payment.captured) - BigInt(payment.refunded)).toString()

/**
 * Names `settlementId` as the payment's record (and the payment as the settlement's escrow), its amount set to
 * captured − refunded, in one transaction.
 */
export async function linkEscrowSettlement(
  db: Kysely<Database>,
  paymentId: string,
  settlementId: string,
): Promise<void> {
  await escrowDb(db)
    .transaction()
    .execute((trx) => linkEscrowSettlementIn(trx, paymentId, settlementId))
}

/** {@link linkEscrowSettlement} inside the caller's database transaction `trx`. */
export async function linkEscrowSettlementIn(
  trx: Kysely<EscrowDatabase>,
  paymentId: string,
  settlementId: string,
): Promise<void> {
  const payment = await trx
    .updateTable('escrow_payments')
    .set({ settlement_id: settlementId })
    .where('id', '=', paymentId)
    .returning(['captured', 'refunded'])
    .executeTakeFirst()
  if (!payment) throw new Error(`no escrow payment ${paymentId} to link a settlement to`)
  await trx
    .updateTable('settlements')
    .set({ escrow_id: paymentId, amount: settlementAmountOf(payment) })
    .where('id', '=', settlementId)
    .execute()
}

/** Sets what the chain says a payment can still capture and refund (a read that moved nothing). */
export async function setEscrowChainView(
  db: Kysely<Database>,
  id: string,
  view: { capturable: string; refundable: string; at: string },
): Promise<void> {
  await db
    .updateTable('escrow_payments')
    .set({ capturable: view.capturable, refundable: view.refundable, updated_at: view.at })
    .where('id', '=', id)
    .execute()
}

/** Marks a payment's answer as never delivered to the buyer (a crash between its collect and its answer). */
export async function markEscrowUndelivered(db: Kysely<Database>, id: string): Promise<void> {
  await db.updateTable('escrow_payments').set({ delivered: 0 }).where('id', '=', id).execute()
}

/**
 * Payments of a chain epoch (of `network`, when given) still holding something at `nowSeconds` past their capture
 * deadline: the buyer may have
 * reclaimed them (server/escrow/reclaims.ts). One indexed query (state, capture_deadline).
 */
export async function escrowPaymentsPastCaptureDeadline(
  db: Kysely<Database>,
  chainEpoch: string,
  nowSeconds: number,
  { limit = 100, network }: { limit?: number; network?: string | undefined } = {},
): Promise<EscrowPaymentRow[]> {
  let query = db
    .selectFrom('escrow_payments')
    .selectAll()
    .where('state', '=', 'authorized')
    .where('capture_deadline', '<=', nowSeconds)
    .where('chain_epoch', '=', chainEpoch)
  if (network !== undefined) query = query.where('network', '=', network)
  const rows = await query.orderBy('capture_deadline').limit(limit).execute()
  return rows.map(paymentOf)
}
