import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/**
 * `sandbox_chain_owner` (PostgreSQL only: `svc serve --sandbox-chain shared`): the one row naming the process that
 * owns the team Sandbox's chain (its lease is a session advisory lock, server/cluster/chain-lease.ts), the URL the
 * other processes reach it at, and the chain's epoch once it is up (null while it starts). A trigger NOTIFYs
 * `svc_chain_owner` on every change, so the other processes learn of a new owner or epoch at once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema
    .createTable('sandbox_chain_owner')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('owner', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('epoch', 'text')
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute()
  await sql`create function notify_svc_chain_owner() returns trigger language plpgsql as $$
    begin perform pg_notify('svc_chain_owner', ''); return null; end $$`.execute(db)
  await sql`create trigger sandbox_chain_owner_notify after insert or update or delete on sandbox_chain_owner
    for each statement execute function notify_svc_chain_owner()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema.dropTable('sandbox_chain_owner').execute()
  await sql`drop function notify_svc_chain_owner()`.execute(db)
}
