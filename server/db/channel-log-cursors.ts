import type { Kysely } from 'kysely'
import type { Database } from './tables.js'

/** Where svc's reading of a chain's channel logs got to. */
export type ChannelLogCursor = {
  /** The first block not read yet. */
  nextBlock: bigint
  /** The hash of block `nextBlock - 1` as it was read; null when unknown (a row written before svc kept it). */
  blockHash: string | null
}

/** Where the reading of `network`'s channel logs (on `chainEpoch`) got to; undefined: none read. */
export async function channelLogCursor(
  db: Kysely<Database>,
  network: string,
  chainEpoch: string,
): Promise<ChannelLogCursor | undefined> {
  const row = await db
    .selectFrom('channel_log_cursors')
    .select(['next_block', 'block_hash'])
    .where('network', '=', network)
    .where('chain_epoch', '=', chainEpoch)
    .executeTakeFirst()
  return row ? { nextBlock: BigInt(row.next_block), blockHash: row.block_hash } : undefined
}

/** Saves where the reading of `network`'s channel logs (on `chainEpoch`) goes on from. */
export async function saveChannelLogCursor(
  db: Kysely<Database>,
  network: string,
  chainEpoch: string,
  cursor: ChannelLogCursor,
): Promise<void> {
  const row = {
    network,
    chain_epoch: chainEpoch,
    next_block: cursor.nextBlock.toString(),
    block_hash: cursor.blockHash,
    updated_at: new Date().toISOString(),
  }
  await db
    .insertInto('channel_log_cursors')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['network', 'chain_epoch'])
        .doUpdateSet({ next_block: row.next_block, block_hash: row.block_hash, updated_at: row.updated_at }),
    )
    .execute()
}
