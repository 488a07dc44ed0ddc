import type SQLite from 'better-sqlite3'
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
  close(): Promise<void>
}
