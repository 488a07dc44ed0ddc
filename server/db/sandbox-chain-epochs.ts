import { sql, type Kysely, type Selectable } from 'kysely'
import type { SandboxChainEpochsTable } from './sandbox-tables.js'
import type { Database } from './tables.js'

/** The newest epoch this data dir has seen, if any. */
export function findLatestChainEpoch(db: Kysely<Database>): Promise<Selectable<SandboxChainEpochsTable> | undefined> {
  return db.selectFrom('sandbox_chain_epochs').selectAll().orderBy('seq', 'desc').limit(1).executeTakeFirst()
}

/**
 * Records `epoch` as the newest; an epoch seen before is left where it is. Processes on one PostgreSQL database that
 * start their chains at once may both take the same next `seq`: the one refused (its unique key) takes the next.
 */
export async function insertChainEpoch(
  db: Kysely<Database>,
  epoch: string,
  reason: string,
  startedAt: string,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
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
      return
    } catch (error) {
      if (attempt >= 5 || !seqTaken(error)) throw error
    }
  }
}

/** PostgreSQL's unique violation (23505) on `seq`: another process's epoch took that number first. */
const seqTaken = (error: unknown): boolean =>
  (error as { code?: unknown }).code === '23505' &&
  /sandbox_chain_epochs_seq/.test(`${(error as { constraint?: unknown }).constraint} ${(error as Error).message}`)

/** Writes how far svc's clock is ahead of the machine's on the chain of `epoch` (`svc time advance`). */
export async function setChainClockOffset(db: Kysely<Database>, epoch: string, offsetMs: number): Promise<void> {
  await db
    .updateTable('sandbox_chain_epochs')
    .set({ clock_offset_ms: Math.round(offsetMs) })
    .where('epoch', '=', epoch)
    .execute()
}
