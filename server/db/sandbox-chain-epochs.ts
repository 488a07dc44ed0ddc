import { sql, type Kysely } from 'kysely'
import type { Database, SandboxChainEpochsTable } from './tables.js'

/** The newest epoch this data dir has seen, if any. */
export function findLatestChainEpoch(db: Kysely<Database>): Promise<SandboxChainEpochsTable | undefined> {
  return db.selectFrom('sandbox_chain_epochs').selectAll().orderBy('seq', 'desc').limit(1).executeTakeFirst()
}

/** Records `epoch` as the newest; an epoch seen before is left where it is. */
export async function insertChainEpoch(db: Kysely<Database>, epoch: string, reason: string, startedAt: string): Promise<void> {
  await db
    .insertInto('sandbox_chain_epochs')
    .values((eb) => ({ epoch, reason, started_at: startedAt, seq: eb.selectFrom('sandbox_chain_epochs').select(sql<number>`coalesce(max(seq), 0) + 1`.as('s')) }))
    .onConflict((oc) => oc.column('epoch').doNothing())
    .execute()
}
