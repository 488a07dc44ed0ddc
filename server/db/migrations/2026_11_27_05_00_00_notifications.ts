import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/** Tables whose rows the gateway caches (server/db/cache-version.ts). */
const cachedTables = ['apis', 'endpoints', 'domains'] as const

/**
 * PostgreSQL only (SQLite keeps one process: `PRAGMA data_version`, the in-memory event bus):
 * - `cache_version` moves only for statements that changed rows (a purge that deleted nothing, a settlement's record
 *   that used up no endpoint leave it), and each move is notified on `svc_cache` with the new number, so each process
 *   keeps the version in memory (server/db/cache-version.ts) instead of reading it per request.
 * - `payment_events`: the live stream's replay ring shared by every process (server/cluster/payment-events.ts), its
 *   ids drawn from `payment_event_counter`'s one row: the row's lock, held until the statement commits, makes ids
 *   commit (and so get notified) in order, with no hole. The ring is unlogged: a crash may empty it, not the counter.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await sql`create function svc_cache_bump() returns void language plpgsql as $$
    declare next bigint;
    begin
      update cache_version set version = version + 1 where id = 1 returning version into next;
      perform pg_notify('svc_cache', next::text);
    end $$`.execute(db)
  await sql`create or replace function bump_cache_version() returns trigger language plpgsql as $$
    begin perform svc_cache_bump(); return null; end $$`.execute(db)
  await sql`create function bump_cache_version_rows() returns trigger language plpgsql as $$
    begin if exists (select 1 from changed) then perform svc_cache_bump(); end if; return null; end $$`.execute(db)
  for (const table of cachedTables) {
    // A trigger with a transition table fires for one event: one per event, TRUNCATE (no rows to see) as before.
    await sql`drop trigger ${sql.id(`${table}_cache_version`)} on ${sql.table(table)}`.execute(db)
    await sql`create trigger ${sql.id(`${table}_cache_version`)} after truncate on ${sql.table(table)}
      for each statement execute function bump_cache_version()`.execute(db)
    for (const [event, rows] of [
      ['insert', 'new'],
      ['update', 'new'],
      ['delete', 'old'],
    ] as const)
      await sql`create trigger ${sql.id(`${table}_cache_version_${event}`)} after ${sql.raw(event)}
        on ${sql.table(table)} referencing ${sql.raw(rows)} table as changed
        for each statement execute function bump_cache_version_rows()`.execute(db)
  }
  await db.schema
    .createTable('payment_event_counter')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('last', 'bigint', (c) => c.notNull())
    .execute()
  await db.insertInto('payment_event_counter').values({ id: 1, last: 0 }).execute()
  await sql`create unlogged table payment_events (
    id bigint primary key,
    user_id text not null,
    event text not null
  )`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema.dropTable('payment_events').execute()
  await db.schema.dropTable('payment_event_counter').execute()
  for (const table of cachedTables) {
    for (const event of ['insert', 'update', 'delete'])
      await sql`drop trigger ${sql.id(`${table}_cache_version_${event}`)} on ${sql.table(table)}`.execute(db)
    await sql`drop trigger ${sql.id(`${table}_cache_version`)} on ${sql.table(table)}`.execute(db)
    await sql`create trigger ${sql.id(`${table}_cache_version`)} after insert or update or delete or truncate
      on ${sql.table(table)} for each statement execute function bump_cache_version()`.execute(db)
  }
  await sql`drop function bump_cache_version_rows()`.execute(db)
  await sql`create or replace function bump_cache_version() returns trigger language plpgsql as $$
    begin update cache_version set version = version + 1 where id = 1; return null; end $$`.execute(db)
  await sql`drop function svc_cache_bump()`.execute(db)
}
