import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/**
 * `cluster_processes` (PostgreSQL only): one row per running `svc serve` process of the database, naming the
 * addresses and ports it listens on (its control plane and gateway, and the Sandbox chain's services while it runs
 * them), so that no process lets an upstream target another one (server/serve/cluster-peers.ts). A trigger NOTIFYs
 * `svc_cluster_processes` on every change, so the others learn of a process as it starts.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema
    .createTable('cluster_processes')
    .addColumn('owner', 'text', (c) => c.primaryKey())
    .addColumn('host', 'text', (c) => c.notNull())
    .addColumn('listeners', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .execute()
  await sql`create function notify_svc_cluster_processes() returns trigger language plpgsql as $$
    begin perform pg_notify('svc_cluster_processes', ''); return null; end $$`.execute(db)
  await sql`create trigger cluster_processes_notify after insert or update or delete on cluster_processes
    for each statement execute function notify_svc_cluster_processes()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema.dropTable('cluster_processes').execute()
  await sql`drop function notify_svc_cluster_processes()`.execute(db)
}
