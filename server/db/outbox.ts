import type { Kysely } from 'kysely'
import type { Database, InsertableOutboxRow, OutboxRow } from './tables.js'

/** Writes a mail to the local outbox (nothing leaves the machine). */
export async function insertOutboxMail(db: Kysely<Database>, mail: InsertableOutboxRow): Promise<void> {
  await db.insertInto('outbox').values(mail).execute()
}

export type ListOutboxOptions = {
  /** Only mails to this (lower-cased) address; omitted = every mail. */
  to?: string | undefined
  /** @defaultValue 100 */
  limit?: number | undefined
}

/** The newest mails first. */
export function listOutbox(db: Kysely<Database>, options: ListOutboxOptions = {}): Promise<OutboxRow[]> {
  const { to, limit = 100 } = options
  let query = db.selectFrom('outbox').selectAll().orderBy('id', 'desc').limit(limit)
  if (to) query = query.where('to_email', '=', to)
  return query.execute()
}
