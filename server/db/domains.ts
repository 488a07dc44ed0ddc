import type { Kysely } from 'kysely'
import { ConflictError, NotFoundError } from '../../core/errors.js'
import { isUniqueViolation } from './sqlite/errors.js'
import type { Database, DomainRow } from './tables.js'
import { insertionOrder } from './dialect.js'

/** Whether any API has this (lower-case) hostname. */
export async function hostnameTaken(db: Kysely<Database>, hostname: string): Promise<boolean> {
  return (await db.selectFrom('domains').select('id').where('hostname', '=', hostname).executeTakeFirst()) !== undefined
}

/** Inserts a domain; a hostname another API took meanwhile is 409 "hostname already exists". */
export async function insertDomain(db: Kysely<Database>, row: DomainRow): Promise<void> {
  try {
    await db.insertInto('domains').values(row).execute()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError('hostname already exists')
    throw error
  }
}

/** The API's domains, oldest first. */
export function listDomains(db: Kysely<Database>, apiId: string): Promise<DomainRow[]> {
  return db
    .selectFrom('domains')
    .selectAll()
    .where('api_id', '=', apiId)
    .orderBy('created_at', 'asc')
    .orderBy(insertionOrder(db))
    .execute()
}

/** The hostnames of the API's verified domains, in the order they were verified. */
export async function listVerifiedHostnames(db: Kysely<Database>, apiId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('domains')
    .select('hostname')
    .where('api_id', '=', apiId)
    .where('status', '=', 'verified')
    .orderBy('verified_at', 'asc')
    .orderBy(insertionOrder(db))
    .execute()
  return rows.map((row) => row.hostname)
}

/** One domain of the API; 404 "domain not found" when there is none. */
export async function findDomain(db: Kysely<Database>, apiId: string, domainId: string): Promise<DomainRow> {
  const row = await db
    .selectFrom('domains')
    .selectAll()
    .where('api_id', '=', apiId)
    .where('id', '=', domainId)
    .executeTakeFirst()
  if (!row) throw new NotFoundError('domain not found')
  return row
}

export async function deleteDomain(db: Kysely<Database>, domainId: string): Promise<void> {
  await db.deleteFrom('domains').where('id', '=', domainId).execute()
}

/** Marks a pending domain verified (a no-op when a concurrent verify won). */
export async function markDomainVerified(db: Kysely<Database>, domainId: string, verifiedAt: string): Promise<void> {
  await db
    .updateTable('domains')
    .set({ status: 'verified', verified_at: verifiedAt })
    .where('id', '=', domainId)
    .where('status', '=', 'pending')
    .execute()
}
