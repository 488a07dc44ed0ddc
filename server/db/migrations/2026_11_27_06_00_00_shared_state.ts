import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/**
 * State the processes of one svc share through PostgreSQL (svc serve with several processes; SQLite is one process,
 * whose memory keeps them):
 * - `sandbox_faults`: the injected faults (chain/faults/book.ts), struck by `UPDATE … RETURNING` so `times: N` strikes
 *   N payments in all; a statement trigger NOTIFYs `svc_faults` when one is added or goes, for the "no faults" flag
 *   each process keeps;
 * - `auth_throttle`: rate-limiter-flexible's RateLimiterPostgres table (its own shape: key, points, expire), the auth
 *   routes' counts across processes;
 * - a trigger NOTIFYing `svc_clock` (the epoch) when svc's clock offset moves (`svc time advance`), so every process
 *   reads it at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema
    .createTable('sandbox_faults')
    .addColumn('id', 'text', (c) => c.primaryKey())
    // Strikes go to the oldest fault first: insertion order (created_at may tie within a millisecond).
    .addColumn('seq', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('delay_ms', 'integer')
    .addColumn('status', 'integer')
    .addColumn('drop', 'boolean', (c) => c.notNull())
    .addColumn('api', 'text')
    .addColumn('times', 'integer')
    .addColumn('remaining', 'integer')
    .addColumn('hits', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('sandbox_faults_seq').on('sandbox_faults').column('seq').execute()
  await sql`create function notify_svc_faults() returns trigger language plpgsql as $$
    begin perform pg_notify('svc_faults', ''); return null; end $$`.execute(db)
  await sql`create trigger sandbox_faults_notify after insert or delete or truncate on sandbox_faults
    for each statement execute function notify_svc_faults()`.execute(db)

  // rate-limiter-flexible's own table (RateLimiterPostgres._getCreateTableStmt), made here rather than by the package
  // at first use; its keys are svc's hashes (an email may be longer than the 255 characters).
  await db.schema
    .createTable('auth_throttle')
    .addColumn('key', 'varchar(255)', (c) => c.primaryKey())
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('expire', 'bigint')
    .execute()

  await sql`create function notify_svc_clock() returns trigger language plpgsql as $$
    begin perform pg_notify('svc_clock', new.epoch); return null; end $$`.execute(db)
  await sql`create trigger sandbox_clock_notify after update of clock_offset_ms on sandbox_chain_epochs
    for each row execute function notify_svc_clock()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await sql`drop trigger sandbox_clock_notify on sandbox_chain_epochs`.execute(db)
  await sql`drop function notify_svc_clock()`.execute(db)
  await db.schema.dropTable('auth_throttle').execute()
  await db.schema.dropTable('sandbox_faults').execute()
  await sql`drop function notify_svc_faults()`.execute(db)
}
