import type { Kysely } from 'kysely'
import { nowIso } from '../ids.js'
import type { Database } from './tables.js'

/** Ephemeral endpoints whose ttl has passed are gone: deleted before the API's endpoints are read or written. */
export async function purgeExpired(db: Kysely<Database>, apiId: string): Promise<void> {
  await db.deleteFrom('endpoints').where('api_id', '=', apiId).where('expires_at', 'is not', null).where('expires_at', '<=', nowIso()).execute()
}
