import { createRequire } from 'node:module'
import type Pg from 'pg'
import { Kysely, Migrator, sql, type MigrationProvider } from 'kysely'
import { UsageError } from '../../../core/errors.js'
import { cachedTables } from '../cache-version.js'
import { dialectOf } from '../dialect.js'
import { registerLocalWrites, trackedPostgresDialect } from '../local-writes.js'
import { createNotifications, registerNotifications } from '../notifications.js'
import type { OpenedDatabase } from '../opened-database.js'
import { postgresProcessOwner, registerProcessOwner } from '../process-owner.js'
import type { Database } from '../tables.js'

/** The version of pg svc is built and tested with (package.json's devDependency and optional peer). */
export const pgVersion = '8.23.1'

/** True for a PostgreSQL connection URL; anything else names a SQLite file. */
export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//i.test(location)

let loaded: typeof Pg | undefined

/** pg, loaded when svc first opens a PostgreSQL database (an optional peer dependency, like better-sqlite3). */
function loadPg(): typeof Pg {
  if (loaded) return loaded
  try {
    loaded = createRequire(import.meta.url)('pg') as typeof Pg
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error
    throw new UsageError(`a PostgreSQL database needs pg, which is not installed: npm i pg@${pgVersion}`)
  }
  return loaded
}

/** PostgreSQL's type oid of int8 (bigint, count(*), sum of integers). */
const int8 = 20

/**
 * Opens a pool on the PostgreSQL database at `url` and migrates it (Kysely holds an advisory lock meanwhile, so
 * processes starting together migrate once). Rows read the same as on SQLite: an int8 (a count, a bigint column) is
 * a number, not pg's string (svc's counts and milliseconds stay far below 2^53); numeric (an amount sum) stays a
 * string. Text columns compare bytes, as on SQLite, whatever the cluster's locale: see {@link byteOrderText}.
 */
export async function openPostgres(
  url: string,
  provider: MigrationProvider,
  options: { poolSize?: number | undefined; log?: ((message: string) => void) | undefined } = {},
): Promise<OpenedDatabase> {
  const { poolSize = 10, log } = options
  const pg = loadPg()
  const types = {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === int8 && format !== 'binary'
        ? (value: string) => Number(value)
        : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
  }
  const config = { connectionString: url, types, lock_timeout: 5_000 }
  const pool = new pg.Pool({ ...config, max: poolSize })
  // An idle connection the server dropped must not take the process with it; the next query reconnects. A connection
  // checked out of the pool has no listener of the pool's (a transaction's between two statements, a lock's held while
  // work runs): its own keeps a PostgreSQL restart (57P01, "Connection terminated unexpectedly") from being an
  // unhandled 'error' event. Its next query fails (a 503, server/db/database-errors.ts) and the pool drops it.
  pool.on('error', () => {})
  pool.on('connect', (client) => client.on('error', () => {}))
  // Writes of this process to the tables the gateway caches are noted as they commit (server/db/local-writes.ts).
  const { dialect, writes } = trackedPostgresDialect({ pool }, cachedTables)
  const db = new Kysely<Database>({ dialect })
  registerLocalWrites(db, writes)
  try {
    const { error } = await new Migrator({ db, provider }).migrateToLatest()
    if (error) throw error
    await byteOrderText(db)
  } catch (error) {
    await db.destroy()
    throw new Error(`migrating ${redact(url)} failed: ${(error as Error).message}`, { cause: error })
  }
  const owner = await postgresProcessOwner(
    db,
    async () => {
      const client = new pg.Client(config)
      await client.connect()
      return client
    },
    log,
  ).catch(async (error: unknown) => {
    await db.destroy()
    throw error
  })
  registerProcessOwner(db, owner)
  // LISTEN/NOTIFY (server/db/notifications.ts): a connection of its own, opened at the first subscription.
  const notifications = createNotifications(
    async () => {
      const client = new pg.Client({ ...config, keepAlive: true, application_name: 'svc notifications' })
      await client.connect()
      return client
    },
    { log },
  )
  registerNotifications(db, notifications)
  let closed: Promise<void> | undefined
  return {
    db,
    dialect: dialectOf(db),
    notifications,
    async connect(applicationName) {
      const client = new pg.Client({ ...config, keepAlive: true, application_name: applicationName })
      await client.connect()
      return client
    },
    close() {
      closed ??= Promise.all([notifications.close(), owner.close()]).then(() => db.destroy())
      return closed
    },
  }
}

/**
 * Gives every text column of svc's tables the "C" collation: SQLite compares text byte by byte, and a cluster
 * initialised with a language's locale (en_US…) would order ids, slugs and timestamps differently (pages, cursors). It
 * runs after the migrations, so a column a later migration adds gets it too; a column that has it is left alone.
 */
async function byteOrderText(db: Kysely<Database>): Promise<void> {
  const unchanged = () => sql<{ table_name: string; column_name: string }>`
    select table_name, column_name from information_schema.columns
    where table_schema = current_schema() and data_type = 'text' and table_name not like 'kysely_%'
      and coalesce(collation_name, '') <> 'C'
    order by table_name, column_name`
  if ((await unchanged().execute(db)).rows.length === 0) return
  await db.transaction().execute(async (trx) => {
    // Processes started together on a fresh database each found the columns to change: each then rewrote the tables
    // (an exclusive lock on each, in no set order) while another, done already, read them in its start-up (the
    // channel managers' join of endpoints and apis): PostgreSQL's "deadlock detected", a process's channel managers
    // not started or its start failed. One process changes them, under a lock, and the next ones, waiting on it, read
    // again and find nothing left to change.
    await sql`select pg_advisory_xact_lock(hashtextextended('svc byte order text', 0))`.execute(trx)
    const { rows } = await unchanged().execute(trx)
    // One statement per table: each rewrites the table and its indexes once.
    const tables = new Map<string, string[]>()
    for (const { table_name, column_name } of rows)
      tables.set(table_name, [...(tables.get(table_name) ?? []), column_name])
    for (const [table, columns] of tables) {
      const changes = columns.map((column) => sql`alter column ${sql.ref(column)} type text collate "C"`)
      await sql`alter table ${sql.table(table)} ${sql.join(changes)}`.execute(trx)
    }
  })
}

/** The URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return 'the PostgreSQL database'
  }
}
