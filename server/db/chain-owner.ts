import type { Kysely } from 'kysely'
import type { SandboxChainOwnerTable } from './sandbox-tables.js'
import type { Database } from './tables.js'
import { nowIso } from '../ids.js'

/**
 * The session advisory lock of the team Sandbox's chain owner (svc serve --sandbox-chain shared), beside the liveness
 * locks of server/db/process-owner.ts: theirs hash a process id (`proc_…`) with `hashtextextended(…, 0)`, this one
 * hashes a fixed name no id can take.
 */
export const chainOwnerLockName = 'svc sandbox chain owner'

/** The channel the `sandbox_chain_owner` trigger notifies on every change (migration 2026_11_28_01). */
export const chainOwnerChannel = 'svc_chain_owner'

export type ChainOwnerRow = Omit<SandboxChainOwnerTable, 'id'>

/** The chain owner the database names, if any (it may be gone: its lock says). */
export async function readChainOwner(db: Kysely<Database>): Promise<ChainOwnerRow | undefined> {
  return db
    .selectFrom('sandbox_chain_owner')
    .select(['owner', 'url', 'epoch', 'started_at'])
    .where('id', '=', 1)
    .executeTakeFirst()
}

/** Names `owner` as the chain owner, reached at `url`; `epoch` null while its chain starts. */
export async function publishChainOwner(
  db: Kysely<Database>,
  row: { owner: string; url: string; epoch: string | null },
): Promise<void> {
  const started_at = nowIso()
  await db
    .insertInto('sandbox_chain_owner')
    .values({ id: 1, ...row, started_at })
    .onConflict((conflict) => conflict.column('id').doUpdateSet({ ...row, started_at }))
    .execute()
}

/** The chain's new epoch (the owner's Anvil came back empty), when `owner` still owns it. */
export async function publishChainEpoch(db: Kysely<Database>, owner: string, epoch: string): Promise<void> {
  await db.updateTable('sandbox_chain_owner').set({ epoch }).where('id', '=', 1).where('owner', '=', owner).execute()
}

/** Takes `owner` off the row (a graceful stop), so the others answer "moving" at once rather than after a failed call. */
export async function clearChainOwner(db: Kysely<Database>, owner: string): Promise<void> {
  await db.deleteFrom('sandbox_chain_owner').where('id', '=', 1).where('owner', '=', owner).execute()
}
