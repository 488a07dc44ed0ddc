import type { Kysely } from 'kysely'
import type { Database } from './tables.js'

/** A process's row of `cluster_processes` (migration 2026_12_07_00), its listeners parsed. */
export type ClusterProcess = {
  owner: string
  host: string
  listeners: { address: string; port: number | undefined; name: string }[]
}

/** Names (or names again) `owner`'s listeners. */
export async function saveClusterProcess(db: Kysely<Database>, process: ClusterProcess, now: string): Promise<void> {
  const listeners = JSON.stringify(process.listeners)
  await db
    .insertInto('cluster_processes')
    .values({ owner: process.owner, host: process.host, listeners, started_at: now })
    .onConflict((conflict) => conflict.column('owner').doUpdateSet({ host: process.host, listeners }))
    .execute()
}

/** Every process's row. */
export async function listClusterProcesses(db: Kysely<Database>): Promise<ClusterProcess[]> {
  const rows = await db.selectFrom('cluster_processes').select(['owner', 'host', 'listeners']).execute()
  return rows.map((row) => ({ owner: row.owner, host: row.host, listeners: JSON.parse(row.listeners) }))
}

export async function deleteClusterProcess(db: Kysely<Database>, owner: string): Promise<void> {
  await db.deleteFrom('cluster_processes').where('owner', '=', owner).execute()
}
