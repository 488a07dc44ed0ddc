import type { Kysely } from 'kysely'
import type { ReceiverAuthorizerRow } from './escrow-tables.js'
import type { Database } from './tables.js'

/** The seller's receiver-authorizer key (its private key encrypted), if svc made one. */
export function findReceiverAuthorizer(
  db: Kysely<Database>,
  userId: string,
): Promise<ReceiverAuthorizerRow | undefined> {
  return db.selectFrom('receiver_authorizers').selectAll().where('user_id', '=', userId).executeTakeFirst()
}

/**
 * Keeps the seller's key unless the seller has one: two first uses racing keep one row (the primary key), and an
 * existing key is never replaced (its payments' salts commit to its address). Answers the key that is kept.
 */
export async function insertReceiverAuthorizerIfAbsent(
  db: Kysely<Database>,
  row: ReceiverAuthorizerRow,
): Promise<ReceiverAuthorizerRow> {
  await db
    .insertInto('receiver_authorizers')
    .values(row)
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute()
  const kept = await findReceiverAuthorizer(db, row.user_id)
  if (!kept) throw new Error('the receiver authorizer vanished right after it was written')
  return kept
}
