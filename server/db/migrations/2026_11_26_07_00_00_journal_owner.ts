import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/** Tables whose rows the gateway caches (server/db/sqlite/gateway-store.ts's version) and lists in insertion order. */
const cachedTables = ['apis', 'endpoints', 'domains'] as const

/**
 * A settlement journal row names the process that wrote it (`owner`, a random id per boot; rows written before have
 * none): recovery resolves only rows of processes that are gone (server/db/process-owner.ts).
 *
 * PostgreSQL only (SQLite has both already):
 * - `seq`, an identity column on the tables listed in insertion order (SQLite's `rowid`; by default, not always, so
 *   that a row read and written back whole keeps it);
 * - `cache_version`, one row whose number statement triggers move on every write to those tables: the gateway's label
 *   of "the APIs, endpoints and domains it cached are still current", which every process can read.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlement_journal').addColumn('owner', 'text').execute()
  if (dialectOf(db).name !== 'postgres') return
  for (const table of cachedTables)
    await db.schema
      .alterTable(table)
      .addColumn('seq', 'bigint', (c) => c.notNull().generatedByDefaultAsIdentity())
      .execute()
  await db.schema
    .createTable('cache_version')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('version', 'bigint', (c) => c.notNull())
    .execute()
  await db.insertInto('cache_version').values({ id: 1, version: 0 }).execute()
  await sql`create function bump_cache_version() returns trigger language plpgsql as $$
    begin update cache_version set version = version + 1 where id = 1; return null; end $$`.execute(db)
  for (const table of cachedTables)
    await sql`create trigger ${sql.id(`${table}_cache_version`)} after insert or update or delete or truncate
      on ${sql.table(table)} for each statement execute function bump_cache_version()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'postgres') {
    for (const table of cachedTables) {
      await sql`drop trigger ${sql.id(`${table}_cache_version`)} on ${sql.table(table)}`.execute(db)
      await db.schema.alterTable(table).dropColumn('seq').execute()
    }
    await sql`drop function bump_cache_version()`.execute(db)
    await db.schema.dropTable('cache_version').execute()
  }
  await db.schema.alterTable('settlement_journal').dropColumn('owner').execute()
}
