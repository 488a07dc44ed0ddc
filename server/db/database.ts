import type SQLite from 'better-sqlite3'
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider, type SqliteDatabase } from 'kysely'
import { LRUCache } from 'lru-cache'
import { dialectOf } from './dialect.js'
import type { OpenedDatabase } from './opened-database.js'
import * as initial from './migrations/2026_11_21_00_00_00_initial.js'
import * as gateway from './migrations/2026_11_21_01_00_00_gateway.js'
import * as chainEpochs from './migrations/2026_11_22_00_00_00_chain_epochs.js'
import * as settlementJournal from './migrations/2026_11_22_01_00_00_settlement_journal.js'
import * as zeroCharges from './migrations/2026_11_22_03_00_00_zero_charges.js'
import * as sandboxClock from './migrations/2026_11_22_03_30_00_sandbox_clock.js'
import * as permit2Journal from './migrations/2026_11_23_00_00_00_permit2_journal.js'
import * as paymentAnswers from './migrations/2026_11_25_03_00_00_payment_answers.js'
import * as signInWithX from './migrations/2026_11_25_04_00_00_sign_in_with_x.js'
import * as bazaarCatalog from './migrations/2026_11_25_05_00_00_bazaar_catalog.js'
import * as channelActions from './migrations/2026_11_26_03_00_00_channel_actions.js'
import * as batchChannels from './migrations/2026_11_26_04_00_00_batch_channels.js'
import * as journalOwner from './migrations/2026_11_26_07_00_00_journal_owner.js'
import * as channelWithdrawals from './migrations/2026_11_27_02_00_00_channel_withdrawals.js'
import * as channelJournal from './migrations/2026_11_27_02_10_00_channel_journal.js'
import * as voucherStats from './migrations/2026_11_27_02_20_00_voucher_stats.js'
import * as paymentClaims from './migrations/2026_11_27_03_00_00_payment_claims.js'
import * as journalStartBlock from './migrations/2026_11_27_04_00_00_journal_start_block.js'
import * as notifications from './migrations/2026_11_27_05_00_00_notifications.js'
import * as sharedState from './migrations/2026_11_27_06_00_00_shared_state.js'
import * as sandboxChainOwner from './migrations/2026_11_28_01_00_00_sandbox_chain_owner.js'
import * as channelLogCursors from './migrations/2026_11_28_03_00_00_channel_log_cursors.js'
import * as paymentIdClaims from './migrations/2026_11_28_05_00_00_payment_id_claims.js'
import * as channelReads from './migrations/2026_11_29_04_00_00_channel_reads.js'
import * as clusterProcesses from './migrations/2026_12_07_00_00_00_cluster_processes.js'
import * as channelTransactionsOnce from './migrations/2026_12_07_01_00_00_channel_transactions_once.js'
import * as escrow from './migrations/2026_12_08_00_00_00_escrow.js'
import { isPostgresUrl, openPostgres } from './postgres/database.js'
import { loadSqlite } from './sqlite/driver.js'
import type { Database } from './tables.js'

/**
 * Migrations in order; add new ones here (timestamped file names, `up` and `down`). They run on SQLite and on
 * PostgreSQL (test/server/db/migrations.test.ts runs them all on both): use Kysely's schema builder, and
 * server/db/dialect.ts's `columnTypes` where the two differ.
 */
export const migrations: Record<string, Migration> = {
  '2026_11_21_00_00_00_initial': initial,
  '2026_11_21_01_00_00_gateway': gateway,
  '2026_11_22_00_00_00_chain_epochs': chainEpochs,
  '2026_11_22_01_00_00_settlement_journal': settlementJournal,
  '2026_11_22_03_00_00_zero_charges': zeroCharges,
  '2026_11_22_03_30_00_sandbox_clock': sandboxClock,
  '2026_11_23_00_00_00_permit2_journal': permit2Journal,
  '2026_11_25_03_00_00_payment_answers': paymentAnswers,
  '2026_11_25_04_00_00_sign_in_with_x': signInWithX,
  '2026_11_25_05_00_00_bazaar_catalog': bazaarCatalog,
  '2026_11_26_03_00_00_channel_actions': channelActions,
  '2026_11_26_04_00_00_batch_channels': batchChannels,
  '2026_11_26_07_00_00_journal_owner': journalOwner,
  '2026_11_27_02_00_00_channel_withdrawals': channelWithdrawals,
  '2026_11_27_02_10_00_channel_journal': channelJournal,
  '2026_11_27_02_20_00_voucher_stats': voucherStats,
  '2026_11_27_03_00_00_payment_claims': paymentClaims,
  '2026_11_27_04_00_00_journal_start_block': journalStartBlock,
  '2026_11_27_05_00_00_notifications': notifications,
  '2026_11_27_06_00_00_shared_state': sharedState,
  '2026_11_28_01_00_00_sandbox_chain_owner': sandboxChainOwner,
  '2026_11_28_03_00_00_channel_log_cursors': channelLogCursors,
  '2026_11_28_05_00_00_payment_id_claims': paymentIdClaims,
  '2026_11_29_04_00_00_channel_reads': channelReads,
  '2026_12_07_00_00_00_cluster_processes': clusterProcesses,
  '2026_12_07_01_00_00_channel_transactions_once': channelTransactionsOnce,
  '2026_12_08_00_00_00_escrow': escrow,
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

/** The SQLite connection under each database svc opened (the gateway's store runs its statements on it). */
const connections = new WeakMap<Kysely<Database>, SQLite.Database>()

/** The SQLite connection `db` runs on, when {@link openDatabase} opened it. */
export const connectionOf = (db: Kysely<Database>): SQLite.Database | undefined => connections.get(db)

export type { OpenedDatabase } from './opened-database.js'
/** better-sqlite3, loaded when svc first opens a database (server/db/sqlite/driver.ts). */
export { loadSqlite } from './sqlite/driver.js'
/** A SQLite file's copy for a sandbox snapshot, and its restore (server/db/sqlite/snapshot.ts). */
export { restoreDatabaseSnapshot, writeDatabaseSnapshot } from './sqlite/snapshot.js'

export type OpenDatabaseOptions = {
  /** PostgreSQL only: the pool's size. @defaultValue 10 */
  poolSize?: number | undefined
  /**
   * PostgreSQL only: where a broken connection of the process's own (LISTEN, liveness) is reported, the server's log.
   * @defaultValue console.error
   */
  log?: ((message: string) => void) | undefined
  /**
   * SQLite only: how long opening waits for a file another process holds before it fails busy (tests shorten it).
   * @defaultValue 5000
   */
  busyTimeoutMs?: number | undefined
}

/** How many statements Kysely's SQLite connection keeps prepared (by their SQL text), least recently used out. */
const preparedStatements = 500

/**
 * `sqlite` as Kysely's dialect takes it, each statement prepared once per SQL text: Kysely prepares every query it
 * runs, which cost an escrow payment's ~30 statements more CPU than running them. A statement busy in an iteration (a
 * stream) is not shared: the caller gets a new one.
 */
function preparedOnce(sqlite: SQLite.Database): SqliteDatabase {
  const kept = new LRUCache<string, SQLite.Statement>({ max: preparedStatements })
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      const statement = kept.get(sql)
      if (statement && !statement.busy) return statement
      const prepared = sqlite.prepare(sql)
      if (!statement) kept.set(sql, prepared)
      return prepared
    },
  }
}

/**
 * Opens svc's database and migrates it to the latest schema. `location` is a PostgreSQL URL (`postgres://` or
 * `postgresql://`: a pool of connections to that database, which must exist) or else a SQLite file, created if needed
 * (`:memory:` works too): in WAL mode on one exclusive connection with foreign keys on.
 */
export async function openDatabase(location: string, options: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  if (isPostgresUrl(location)) return openPostgres(location, provider, options)
  const file = location
  const SQLite = loadSqlite()
  // better-sqlite3's `timeout` is SQLite's busy timeout, set before the first statement (the pragmas below wait on it).
  const sqlite = new SQLite(file, { timeout: Math.max(0, Math.trunc(options.busyTimeoutMs ?? 5000)) })
  // WAL's index (-shm) is a memory-mapped file shared between connections: once the data dir is made immutable
  // (`chattr +i`), touching its pages kills svc with SIGBUS (issue 21 item 4). Locking the file to this one connection,
  // set before WAL, keeps that index in the heap: no -shm, nothing mapped (mmap_size is 0 too), and a write that cannot
  // be made fails as an error. svc is the file's only user (the data dir lock says so).
  if (file !== ':memory:') sqlite.pragma('locking_mode = EXCLUSIVE')
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: preparedOnce(sqlite) }) })
  const { error } = await new Migrator({ db, provider }).migrateToLatest()
  if (error) {
    await db.destroy()
    throw new Error(`migrating ${file} failed: ${(error as Error).message}`, { cause: error })
  }
  let closed: Promise<void> | undefined
  connections.set(db, sqlite)
  return {
    db,
    dialect: dialectOf(db),
    sqlite,
    close() {
      closed ??= db.destroy()
      return closed
    },
  }
}
