import type { Kysely } from 'kysely'
import { ConflictError, NotFoundError } from '../../core/errors.js'
import { cutText, echoedValueLimit } from '../../core/http.js'
import type { Environment } from '../../core/hosts.js'
import { isUniqueViolation } from './sqlite/errors.js'
import type { ApiRow, Database, Owner, UpdateableApiRow } from './tables.js'
import { insertionOrder } from './dialect.js'

/**
 * The owner's API of the owner's environment, by id or by slug (a slug is unique in its environment, and no slug looks
 * like an id); anything else (another seller's, the other environment's) is 404, naming what was looked up and where.
 */
export async function findOwnedApi(db: Kysely<Database>, owner: Owner, apiIdOrSlug: string): Promise<ApiRow> {
  const api = await db
    .selectFrom('apis')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', apiIdOrSlug), eb('slug', '=', apiIdOrSlug)]))
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .executeTakeFirst()
  if (!api) {
    const where = owner.environment === 'development' ? 'the Sandbox' : 'production'
    throw new NotFoundError(
      `api not found: no API of this account in ${where} has the id or slug "${cutText(apiIdOrSlug, echoedValueLimit)}"`,
    )
  }
  return api
}

/** Throws 409 "slug already exists" when another API of the environment has the slug. */
export async function assertSlugFree(
  db: Kysely<Database>,
  environment: Environment,
  slug: string,
  exceptId?: string,
): Promise<void> {
  let query = db.selectFrom('apis').select('id').where('environment', '=', environment).where('slug', '=', slug)
  if (exceptId) query = query.where('id', '!=', exceptId)
  if (await query.executeTakeFirst()) throw new ConflictError('slug already exists')
}

/** The owner's APIs of the owner's environment, oldest first. */
export function listApis(db: Kysely<Database>, owner: Owner): Promise<ApiRow[]> {
  return (
    db
      .selectFrom('apis')
      .selectAll()
      .where('user_id', '=', owner.user.id)
      .where('environment', '=', owner.environment)
      .orderBy('created_at', 'asc')
      // rowid: insertion order, for rows created in the same millisecond.
      .orderBy(insertionOrder(db))
      .execute()
  )
}

/** Inserts an API; a slug another API of the environment took meanwhile is 409 "slug already exists". */
export async function insertApi(db: Kysely<Database>, row: ApiRow): Promise<void> {
  await slugUnique(() => db.insertInto('apis').values(row).execute())
}

/** Updates an API; a slug another API of the environment took meanwhile is 409 "slug already exists". */
export async function updateApi(db: Kysely<Database>, apiId: string, changes: UpdateableApiRow): Promise<void> {
  await slugUnique(() => db.updateTable('apis').set(changes).where('id', '=', apiId).execute())
}

/** Deletes an API and its endpoints (its domains follow by foreign key; settlements and traffic stats stay). */
export async function deleteApi(db: Kysely<Database>, apiId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    // Foreign keys cascade too; deleting the endpoints first keeps that true without the pragma.
    await trx.deleteFrom('endpoints').where('api_id', '=', apiId).execute()
    await trx.deleteFrom('apis').where('id', '=', apiId).execute()
  })
}

async function slugUnique(write: () => Promise<unknown>): Promise<void> {
  try {
    await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError('slug already exists')
    throw error
  }
}

/** Whether an API of the environment has the slug. */
export async function slugExists(db: Kysely<Database>, environment: Environment, slug: string): Promise<boolean> {
  return (
    (await db
      .selectFrom('apis')
      .select('id')
      .where('environment', '=', environment)
      .where('slug', '=', slug)
      .executeTakeFirst()) !== undefined
  )
}
