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

/** A mail and whether its address is verified now (the mail then has nothing left to do). */
export type OutboxMail = OutboxRow & { recipient_verified: boolean }

/** The newest mails first, each with whether its recipient's address is verified. */
export async function listOutbox(db: Kysely<Database>, options: ListOutboxOptions = {}): Promise<OutboxMail[]> {
  const { to, limit = 100 } = options
  let query = db
    .selectFrom('outbox')
    .leftJoin('users', 'users.email', 'outbox.to_email')
    .selectAll('outbox')
    .select('users.email_verified_at')
    .orderBy('outbox.id', 'desc')
    .limit(limit)
  if (to) query = query.where('outbox.to_email', '=', to)
  const rows = await query.execute()
  return rows.map(({ email_verified_at, ...row }) => ({ ...row, recipient_verified: email_verified_at != null }))
}
