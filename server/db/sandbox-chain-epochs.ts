import { sql, type Kysely, type Selectable } from 'kysely'
import type { SandboxChainEpochsTable } from './sandbox-tables.js'
import type { Database } from './tables.js'

/** The newest epoch this data dir has seen, if any. */
export function findLatestChainEpoch(db: Kysely<Database>): Promise<Selectable<SandboxChainEpochsTable> | undefined> {
  return db.selectFrom('sandbox_chain_epochs').selectAll().orderBy('seq', 'desc').limit(1).executeTakeFirst()
}

/** Records `epoch` as the newest; an epoch seen before is left where it is. */
export async function insertChainEpoch(
  db: Kysely<Database>,
  epoch: string,
  reason: string,
  startedAt: string,
): Promise<void> {
  await db
    .insertInto('sandbox_chain_epochs')
    .values((eb) => ({
      epoch,
      reason,
      started_at: startedAt,
      seq: eb.selectFrom('sandbox_chain_epochs').select(sql<number>`coalesce(max(seq), 0) + 1`.as('s')),
    }))
    .onConflict((oc) => oc.column('epoch').doNothing())
    .execute()
}

/** Writes how far svc's clock is ahead of the machine's on the chain of `epoch` (`svc time advance`). */
export async function setChainClockOffset(db: Kysely<Database>, epoch: string, offsetMs: number): Promise<void> {
  await db
    .updateTable('sandbox_chain_epochs')
    .set({ clock_offset_ms: Math.round(offsetMs) })
    .where('epoch', '=', epoch)
    .execute()
}
