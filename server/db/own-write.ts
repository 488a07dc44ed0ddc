import type SQLite from 'better-sqlite3'
import type { CompiledQuery, Kysely } from 'kysely'
import { connectionOf } from './database.js'
import type { Database } from './tables.js'

/** How the gateway's own synchronous writes are kept off its cache version (GatewayStore.own). */
export type OwnWrites = <T>(write: () => T) => T

const statements = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>()

/** `compiled` prepared once per connection. */
function statementOf(connection: SQLite.Database, sql: string): SQLite.Statement {
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
