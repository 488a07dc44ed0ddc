import {
  PostgresDialect,
  type CompiledQuery,
  PostgresDriver,
  type DatabaseConnection,
  type Driver,
  type Kysely,
  type OperationNode,
  type PostgresDialectConfig,
  type TransactionSettings,
} from 'kysely'
import { markDatabaseError } from './database-errors.js'

/**
 * This process's own writes to some tables, as they commit. The gateway keeps the tables' version in memory from
 * notifications (server/db/cache-version.ts), which arrive a moment after a commit: a write of this process is
 * noticed at once, so the next request reads the version again (a seller who changes a price through this process
 * gets the new price on its next request).
 */
export type LocalWrites = {
  /** True when a write committed since the last call (the flag is cleared). */
  take(): boolean
  /** True when a write committed since the last {@link take}, the flag left as it is. */
  pending(): boolean
}

const registry = new WeakMap<Kysely<any>, LocalWrites>()

export const localWritesOf = (db: Kysely<any>): LocalWrites | undefined => registry.get(db)

export function registerLocalWrites(db: Kysely<any>, writes: LocalWrites): void {
  registry.set(db, writes)
}

/**
 * A PostgreSQL dialect that notes Kysely's writes (insert, update, delete) to `tables` once they commit: an
 * autocommitted statement when it returns, a transaction's when it commits. Raw SQL is not seen.
 */
export function trackedPostgresDialect(
  config: PostgresDialectConfig,
  tables: readonly string[],
): { dialect: PostgresDialect; writes: LocalWrites } {
  const watched = new Set(tables)
  let written = false
  const writes: LocalWrites = {
    take() {
      const was = written
      written = false
      return was
    },
    pending: () => written,
  }
  /** Connections inside a transaction, and those of them that wrote to a watched table. */
  const inTransaction = new WeakSet<DatabaseConnection>()
  const wrote = new WeakSet<DatabaseConnection>()
  const patched = new WeakSet<DatabaseConnection>()

  class TrackingDriver extends PostgresDriver {
    override async acquireConnection(): Promise<DatabaseConnection> {
      // A query's errors are marked as the database's (a refused connection: a 503, server/db/database-errors.ts).
      const connection = await super.acquireConnection().catch((error: unknown) => {
        throw markDatabaseError(error)
      })
      if (!patched.has(connection)) {
        patched.add(connection)
        const execute = connection.executeQuery.bind(connection)
        connection.executeQuery = async <R>(compiled: CompiledQuery) => {
          const result = await execute<R>(compiled).catch((error: unknown) => {
            throw markDatabaseError(error)
          })
          if (writesTo(compiled.query, watched)) {
            if (inTransaction.has(connection)) wrote.add(connection)
            else written = true
          }
          return result
        }
      }
      return connection
    }
    override async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
      await super.beginTransaction(connection, settings)
      inTransaction.add(connection)
    }
    override async commitTransaction(connection: DatabaseConnection): Promise<void> {
      try {
        await super.commitTransaction(connection)
        if (wrote.has(connection)) written = true
      } finally {
        inTransaction.delete(connection)
        wrote.delete(connection)
      }
    }
    override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
      inTransaction.delete(connection)
      wrote.delete(connection)
      await super.rollbackTransaction(connection)
    }
  }

  class TrackedDialect extends PostgresDialect {
    override createDriver(): Driver {
      return new TrackingDriver(config)
    }
  }
  return { dialect: new TrackedDialect(config), writes }
}

/** Whether a query node inserts into, updates or deletes from one of `tables`. */
function writesTo(node: OperationNode, tables: ReadonlySet<string>): boolean {
  const named = (table: OperationNode | undefined): boolean => {
    if (!table) return false
    const any = table as { kind: string; table?: { identifier?: { name?: string } }; node?: OperationNode }
    if (any.kind === 'AliasNode') return named(any.node)
    return any.kind === 'TableNode' && tables.has(any.table?.identifier?.name ?? '')
  }
  const query = node as {
    kind: string
    into?: OperationNode
    table?: OperationNode
    from?: { froms: readonly OperationNode[] }
  }
  if (query.kind === 'InsertQueryNode') return named(query.into)
  if (query.kind === 'UpdateQueryNode') return named(query.table)
  if (query.kind === 'DeleteQueryNode') return query.from?.froms.some(named) ?? false
  return false
}
