import type SQLite from 'better-sqlite3'
import type Pg from 'pg'
import type { Kysely } from 'kysely'
import type { Dialect } from './dialect.js'
import type { Notifications } from './notifications.js'
import type { Database } from './tables.js'

/** A database svc opened (server/db/database.ts `openDatabase`), migrated. */
export type OpenedDatabase = {
  db: Kysely<Database>
  dialect: Dialect
  /** The one SQLite connection (SQLite only). */
  sqlite?: SQLite.Database | undefined
  /** LISTEN/NOTIFY between the processes sharing the database (PostgreSQL only). */
  notifications?: Notifications | undefined
  /** A connection of its own, beside the pool (PostgreSQL only): a session lock held for long (the chain-owner lease). */
  connect?: ((applicationName: string) => Promise<Pg.Client>) | undefined
  close(): Promise<void>
}
