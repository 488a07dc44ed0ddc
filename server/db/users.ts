import type { Kysely } from 'kysely'
import { ConflictError } from '../../core/errors.js'
import { isUniqueViolation } from './sqlite/errors.js'
import type { Database, UserRow } from './tables.js'

export function findUserById(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
}

/** The user of an email address, already lower-cased. */
export function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst()
}

/** Whether an account has this (lower-cased) email address. */
export async function emailTaken(db: Kysely<Database>, email: string): Promise<boolean> {
  return (await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()) !== undefined
}

/** Inserts a user; an email already registered (two sign-ups racing: the unique index decides) is 409. */
export async function insertUser(db: Kysely<Database>, user: UserRow): Promise<void> {
  try {
    await db.insertInto('users').values(user).execute()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError('email already registered')
    throw error
  }
}

/** Marks the user's email verified and the verification token used, in one transaction. */
export async function markEmailVerified(
  db: Kysely<Database>,
  userId: string,
  token: string,
  verifiedAt: string,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('users').set({ email_verified_at: verifiedAt }).where('id', '=', userId).execute()
    await trx.updateTable('email_verifications').set({ used_at: verifiedAt }).where('token', '=', token).execute()
  })
}
