import type { Kysely } from 'kysely'
import { dialectOf } from './dialect.js'
import type { GatewayStore } from './gateway-store.js'
import { postgresGatewayStore } from './postgres/gateway-store.js'
import { sqliteGatewayStore } from './sqlite/gateway-store.js'
import type { Database } from './tables.js'

/**
 * The gateway's access to `db`, opened once when the gateway is created: on SQLite its prepared statements on svc's one
 * connection (server/db/sqlite/gateway-store.ts), on PostgreSQL its statements on the pool and the cache version
 * other processes move (server/db/postgres/gateway-store.ts).
 */
export async function openGatewayStore(db: Kysely<Database>): Promise<GatewayStore> {
  return dialectOf(db).name === 'postgres' ? postgresGatewayStore(db) : await sqliteGatewayStore(db)
}
