import { sql, type Kysely } from 'kysely'
import { dialectOf } from './dialect.js'
import { isUniqueViolation } from './sqlite/errors.js'
import type { Database, SettlementJournalRow, SettlementRow } from './tables.js'

/** Journal rows written before `before` (ISO), oldest first; `owner`'s only when given. */
export function listJournalRows(
  db: Kysely<Database>,
  before: string,
  owner?: string | undefined,
): Promise<SettlementJournalRow[]> {
  let query = db.selectFrom('settlement_journal').selectAll().where('created_at', '<', before)
  if (owner !== undefined) query = query.where('owner', '=', owner)
  return query.orderBy('created_at').execute()
}

/** Removes a journal row: its payment was not settled (or its settlement is fully accounted for). */
export async function deleteJournalRow(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('settlement_journal').where('id', '=', id).execute()
}

/** Marks the row's recorded settlement as charged without an answer and removes the row, in one transaction. */
export async function markJournalUndelivered(
  db: Kysely<Database>,
  row: SettlementJournalRow & { settlement_id: string },
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('settlements').set({ delivered: 0 }).where('id', '=', row.settlement_id).execute()
    await trx.deleteFrom('settlement_journal').where('id', '=', row.id).execute()
  })
}

/** Thrown inside a transaction to roll it back: the journal row is gone (a request of the same payment replaced it). */
class RowGone extends Error {}

/**
 * Records a settlement found on the chain for a journal row (charged without an answer), deletes the ephemeral endpoint
 * it used up and removes the row, in one transaction. False when that transaction was recorded already, or when the row
 * is gone meanwhile (a new request of the same payment took over: it records the settlement itself).
 */
export async function recordJournalSettlement(
  db: Kysely<Database>,
  row: SettlementJournalRow,
  settlement: SettlementRow,
): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      const deleted = await trx.deleteFrom('settlement_journal').where('id', '=', row.id).executeTakeFirst()
      if (deleted.numDeletedRows === 0n) throw new RowGone()
      await trx.insertInto('settlements').values(settlement).execute()
      if (row.ephemeral) {
        await trx.deleteFrom('endpoints').where('id', '=', row.endpoint_id).execute()
        // PostgreSQL: its claim becomes its tombstone, so every process answers 410 for it (server/db/endpoint-claims.ts).
        if (dialectOf(trx).name === 'postgres')
          await trx
            .updateTable('endpoint_claims')
            .set({ deleted_at: sql`now()` })
            .where('endpoint_id', '=', row.endpoint_id)
            .execute()
      }
    })
    return true
  } catch (error) {
    if (error instanceof RowGone) return false
    if (!isUniqueViolation(error)) throw error
    await deleteJournalRow(db, row.id)
    return false
  }
}

/**
 * PostgreSQL: writes `row` (state `claimed`) as the claim of its payment, unless a row of the same payment is held
 * (claimed or settling, by this process or another, a dead one's included: that is the reaper's); a row abandoned
 * after a failed settlement is taken over (its sweeper then finds its id gone). True when `row` holds the payment.
 */
export async function claimJournalRow(db: Kysely<Database>, row: SettlementJournalRow): Promise<boolean> {
  const replaced = Object.fromEntries(Object.keys(row).map((column) => [column, sql.ref(`excluded.${column}`)]))
  const claimed = await db
    .insertInto('settlement_journal')
    .values(row)
    .onConflict((conflict) =>
      conflict
        .column('payment_id')
        .doUpdateSet(replaced)
        .where(sql.ref('settlement_journal.state'), 'in', ['abandoned', 'refused']),
    )
    .returning('id')
    .executeTakeFirst()
  return claimed !== undefined
}

/** Who holds a payment's claim (its journal row's process and state); undefined when nobody does. */
export function journalHolderOf(
  db: Kysely<Database>,
  paymentId: string,
): Promise<Pick<SettlementJournalRow, 'owner' | 'state'> | undefined> {
  return db
    .selectFrom('settlement_journal')
    .select(['owner', 'state'])
    .where('payment_id', '=', paymentId)
    .executeTakeFirst()
}

/** Removes a claimed row no settlement was begun for (the payment was refused, or failed before its settlement). */
export async function releaseJournalClaim(db: Kysely<Database>, id: string): Promise<void> {
  await db.deleteFrom('settlement_journal').where('id', '=', id).where('state', '=', 'claimed').execute()
}

/**
 * Marks a row whose settlement failed or broke off (`abandoned`), or that the facilitator refused for good (`refused`):
 * the sweeper resolves it, a retry of its payment may take it over.
 */
export async function abandonJournalRow(
  db: Kysely<Database>,
  id: string,
  state: 'abandoned' | 'refused' = 'abandoned',
): Promise<void> {
  await db.updateTable('settlement_journal').set({ state }).where('id', '=', id).execute()
}
