import type { Kysely } from 'kysely'

/**
 * The hash of the last block svc's reading of the withdraw logs got to (`channel_log_cursors.block_hash`, block
 * `next_block - 1`; null on rows written before it): a chain reverted below it and mined past it again (a snapshot
 * reverted under a check, a chain reloaded from an older state, a deep reorg) has another block there, so the reading
 * starts again instead of skipping the blocks in between (server/gateway/batch-withdrawals.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_log_cursors').addColumn('block_hash', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_log_cursors').dropColumn('block_hash').execute()
}
