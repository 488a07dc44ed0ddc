import { sql, type ExpressionBuilder, type Kysely } from 'kysely'
import { ConflictError, NotFoundError } from '../../core/errors.js'
import { nowIso } from '../ids.js'
import { isUniqueViolation } from './sqlite/errors.js'
import type { Database, EndpointRow } from './tables.js'
import { insertionOrder } from './dialect.js'

/**
 * Ephemeral endpoints whose ttl has passed are gone. Reads leave them out ({@link isLive}); writes to an API delete
 * its expired ones first (so their routes are free again), and {@link purgeAllExpired} runs now and then for the rest.
 */
export async function purgeExpired(db: Kysely<Database>, apiId: string, now = nowIso()): Promise<void> {
  await db
    .deleteFrom('endpoints')
    .where('api_id', '=', apiId)
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .execute()
}

/** Deletes the expired ephemeral endpoints of every API; answers how many there were. */
export async function purgeAllExpired(db: Kysely<Database>, now = nowIso()): Promise<number> {
  const result = await db
    .deleteFrom('endpoints')
    .where('expires_at', 'is not', null)
    .where('expires_at', '<=', now)
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}

/** Not an ephemeral endpoint past its expires_at at `now` (those are gone, whether or not a purge deleted them yet). */
const isLive = (now: string) => (eb: ExpressionBuilder<Database, 'endpoints'>) =>
  eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', now)])

/** The API's endpoints, oldest first. `now` (ISO 8601, svc's clock) decides which ephemeral ones expired. */
export function listEndpoints(db: Kysely<Database>, apiId: string, now = nowIso()): Promise<EndpointRow[]> {
  return (
    db
      .selectFrom('endpoints')
      .selectAll()
      .where('api_id', '=', apiId)
      .where(isLive(now))
      .orderBy('created_at', 'asc')
      // rowid: insertion order, for rows created in the same millisecond (an import).
      .orderBy(insertionOrder(db))
      .execute()
  )
}

/** One endpoint of the API; 404 "endpoint not found" when there is none (or it expired). */
export async function findEndpoint(
  db: Kysely<Database>,
  apiId: string,
  endpointId: string,
  now = nowIso(),
): Promise<EndpointRow> {
  const row = await db
    .selectFrom('endpoints')
    .selectAll()
    .where('api_id', '=', apiId)
    .where('id', '=', endpointId)
    .where(isLive(now))
    .executeTakeFirst()
  if (!row) throw new NotFoundError('endpoint not found')
  return row
}

/** How many endpoints the API has, and how many of them the discovery documents list (enabled, not ephemeral). */
export async function countEndpoints(
  db: Kysely<Database>,
  apiId: string,
  now = nowIso(),
): Promise<{ total: number; discoverable: number }> {
  const counts = await db
    .selectFrom('endpoints')
    .select([
      sql<number>`count(*)`.as('total'),
      sql<number>`coalesce(sum(case when enabled = 1 and ttl_seconds is null and expires_at is null then 1 else 0 end), 0)`.as(
        'discoverable',
      ),
    ])
    .where('api_id', '=', apiId)
    .where(isLive(now))
    .executeTakeFirstOrThrow()
  return { total: Number(counts.total), discoverable: Number(counts.discoverable) }
}

export const routeKey = (method: string, pathPattern: string) => `${method} ${pathPattern}`

/** The endpoints' `METHOD path` keys of an API. */
export async function existingRoutes(db: Kysely<Database>, apiId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('endpoints').select(['method', 'path_pattern']).where('api_id', '=', apiId).execute()
  return new Set(rows.map((row) => routeKey(row.method, row.path_pattern)))
}

/** Whether the API already has an endpoint for this method and path pattern (one indexed lookup). */
export async function routeExists(
  db: Kysely<Database>,
  apiId: string,
  method: string,
  pathPattern: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('endpoints')
    .select('id')
    .where('api_id', '=', apiId)
    .where('method', '=', method)
    .where('path_pattern', '=', pathPattern)
    .executeTakeFirst()
  return row !== undefined
}

/** Inserts an endpoint; a method+path_pattern already on the API is 409 "endpoint already exists". */
export async function insertEndpoint(db: Kysely<Database>, row: EndpointRow): Promise<void> {
  await routeUnique(() => db.insertInto('endpoints').values(row).execute())
}

/**
 * Inserts, in one transaction, the rows whose method+path_pattern the API does not have yet (checked inside the
 * transaction); answers the rows inserted.
 */
export function insertNewEndpoints(db: Kysely<Database>, apiId: string, rows: EndpointRow[]): Promise<EndpointRow[]> {
  return db.transaction().execute(async (trx) => {
    const existing = await existingRoutes(trx, apiId)
    const inserted: EndpointRow[] = []
    for (const row of rows) {
      if (existing.has(routeKey(row.method, row.path_pattern))) continue
      await trx.insertInto('endpoints').values(row).execute()
      inserted.push(row)
    }
    return inserted
  })
}

/** Updates an endpoint; moving it onto a method+path_pattern the API has is 409 "endpoint already exists". */
export async function updateEndpoint(
  db: Kysely<Database>,
  endpointId: string,
  changes: Partial<EndpointRow>,
): Promise<void> {
  await routeUnique(() => db.updateTable('endpoints').set(changes).where('id', '=', endpointId).execute())
}

export async function deleteEndpoint(db: Kysely<Database>, endpointId: string): Promise<void> {
  await db.deleteFrom('endpoints').where('id', '=', endpointId).execute()
}

async function routeUnique(write: () => Promise<unknown>): Promise<void> {
  try {
    await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError('endpoint already exists')
    throw error
  }
}
