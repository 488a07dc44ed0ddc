import type { Kysely } from 'kysely'
import type { Database } from './tables.js'

/** The first block of `network` (on `chainEpoch`) whose channel logs svc has not read yet; undefined: none read. */
export async function channelLogCursor(
  db: Kysely<Database>,
  network: string,
  chainEpoch: string,
): Promise<bigint | undefined> {
  const row = await db
    .selectFrom('channel_log_cursors')
    .select('next_block')
    .where('network', '=', network)
    .where('chain_epoch', '=', chainEpoch)
    .executeTakeFirst()
  return row ? BigInt(row.next_block) : undefined
}

/** Saves where the reading of `network`'s channel logs (on `chainEpoch`) goes on from. */
export async function saveChannelLogCursor(
  db: Kysely<Database>,
  network: string,
  chainEpoch: string,
  nextBlock: bigint,
): Promise<void> {
  const row = {
    network,
    chain_epoch: chainEpoch,
    next_block: nextBlock.toString(),
    updated_at: new Date().toISOString(),
  }
  await db
    .insertInto('channel_log_cursors')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['network', 'chain_epoch']).doUpdateSet({ next_block: row.next_block, updated_at: row.updated_at }),
    )
    .execute()
}
