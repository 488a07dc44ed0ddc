import type { Kysely } from 'kysely'
import type { Database, EmailVerificationRow } from './tables.js'

export async function insertEmailVerification(db: Kysely<Database>, row: EmailVerificationRow): Promise<void> {
  await db.insertInto('email_verifications').values(row).execute()
}

export function findEmailVerification(db: Kysely<Database>, token: string): Promise<EmailVerificationRow | undefined> {
  return db.selectFrom('email_verifications').selectAll().where('token', '=', token).executeTakeFirst()
}
