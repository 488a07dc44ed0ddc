import { sql, type Kysely } from 'kysely'
import type { Database, EndpointRow } from './tables.js'

/** What a claim of a one-time endpoint found: it is this request's now, another payment holds it, or it was used up. */
export type EndpointClaimResult = 'claimed' | 'held' | 'used-up'

/** How long a used-up endpoint's tombstone answers 410 (as the single process's memory did). */
export const tombstoneMs = 10 * 60_000

const fromNow = (ms: number) => sql<Date>`now() + ${Math.round(ms)}::int * interval '1 millisecond'`

/**
 * PostgreSQL: claims a one-time endpoint for a payment of process `owner`, for `holdMs` (longer than any payment takes:
 * a claim whose process died is free again after it). Refused while another payment holds it, and for good once it
 * was used up (its tombstone).
 */
export async function claimEndpoint(
  db: Kysely<Database>,
  endpoint: EndpointRow,
  owner: string,
  holdMs: number,
): Promise<EndpointClaimResult> {
  const claimed = await db
    .insertInto('endpoint_claims')
    .values({
      endpoint_id: endpoint.id,
      api_id: endpoint.api_id,
      method: endpoint.method,
      path_pattern: endpoint.path_pattern,
      claimed_by: owner,
      claimed_until: fromNow(holdMs),
    })
    .onConflict((conflict) =>
      conflict
        .column('endpoint_id')
        .doUpdateSet({ claimed_by: sql.ref('excluded.claimed_by'), claimed_until: sql.ref('excluded.claimed_until') })
        .where(sql.ref('endpoint_claims.deleted_at'), 'is', null)
        .where(sql.ref('endpoint_claims.claimed_until'), '<', sql`now()`),
    )
    .returning('endpoint_id')
    .executeTakeFirst()
  if (claimed) return 'claimed'
  const held = await db
    .selectFrom('endpoint_claims')
    .select('deleted_at')
    .where('endpoint_id', '=', endpoint.id)
    .executeTakeFirst()
  return held?.deleted_at ? 'used-up' : 'held'
}

/** Lets go of an endpoint `owner` claimed whose payment did not settle. */
export async function releaseEndpoint(db: Kysely<Database>, endpointId: string, owner: string): Promise<void> {
  await db
    .deleteFrom('endpoint_claims')
    .where('endpoint_id', '=', endpointId)
    .where('claimed_by', '=', owner)
    .where('deleted_at', 'is', null)
    .execute()
}

/** The API's one-time endpoints used up within the last {@link tombstoneMs}: their method and path pattern. */
export function usedUpEndpoints(
  db: Kysely<Database>,
  apiId: string,
): Promise<{ method: string; path_pattern: string }[]> {
  return db
    .selectFrom('endpoint_claims')
    .select(['method', 'path_pattern'])
    .where('api_id', '=', apiId)
    .where('deleted_at', '>', fromNow(-tombstoneMs))
    .execute()
}

/** Deletes tombstones older than {@link tombstoneMs} and claims whose time ran out; answers how many. */
export async function purgeEndpointClaims(db: Kysely<Database>): Promise<number> {
  const result = await db
    .deleteFrom('endpoint_claims')
    .where((eb) =>
      eb.or([
        eb('deleted_at', '<=', fromNow(-tombstoneMs)),
        eb.and([eb('deleted_at', 'is', null), eb('claimed_until', '<', sql<Date>`now()`)]),
      ]),
    )
    .executeTakeFirst()
  return Number(result.numDeletedRows)
}
