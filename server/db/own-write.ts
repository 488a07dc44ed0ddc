import type SQLite from 'better-sqlite3'
import type { CompiledQuery, Kysely } from 'kysely'
import { connectionOf } from './database.js'
import type { Database } from './tables.js'

/** How the gateway's own synchronous writes are kept off its cache version (GatewayStore.own). */
export type OwnWrites = <T>(write: () => T) => T

const statements = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>()

/** The gateway store's `own` of each SQLite connection (server/db/sqlite/gateway-store.ts registers it). */
const ownWriters = new WeakMap<SQLite.Database, OwnWrites>()

/** Registers the gateway store's `own` on its connection, for bookkeeping written beside the gateway's (the bazaar catalog). */
export function registerOwnWrites(connection: SQLite.Database, own: OwnWrites): void {
  ownWriters.set(connection, own)
}

/**
 * Runs `write` (synchronous statements on `connection`) as the gateway's own: its rows do not move the gateway's
 * cache version, so they do not empty its caches of APIs and endpoints. Without a gateway store on the connection, it
 * just runs.
 */
export function writeAsOwn<T>(connection: SQLite.Database, write: () => T): T {
  const own = ownWriters.get(connection)
  return own ? own(write) : write()
}

/** `sql` prepared once per connection. */
export function statementOf(connection: SQLite.Database, sql: string): SQLite.Statement {
  let cache = statements.get(connection)
  if (!cache) statements.set(connection, (cache = new Map()))
  let statement = cache.get(sql)
  if (!statement) cache.set(sql, (statement = connection.prepare(sql)))
  return statement
}

/**
 * Runs a write of the gateway's bookkeeping: on svc's SQLite connection synchronously, as one of the gateway's own
 * (`own`: its rows do not empty the gateway's caches), or through Kysely inside a transaction or on another database.
 */
export async function writeOwn(db: Kysely<Database>, own: OwnWrites, compiled: CompiledQuery): Promise<void> {
  const connection = connectionOf(db)
  if (connection && !connection.inTransaction) {
    own(() => statementOf(connection, compiled.sql).run(...(compiled.parameters as unknown[])))
    return
  }
  await db.executeQuery(compiled)
}

/** Runs a write on the connection synchronously (in a transaction of the caller's); the rows it changed. */
export function runOn(connection: SQLite.Database, compiled: CompiledQuery): number {
  return statementOf(connection, compiled.sql).run(...(compiled.parameters as unknown[])).changes
}
