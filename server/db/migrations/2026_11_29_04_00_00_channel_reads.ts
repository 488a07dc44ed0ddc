import type { Kysely } from 'kysely'

/**
 * What svc reads of its channels' records back:
 * - the hash of the last block its reading of the withdraw logs got to (`channel_log_cursors.block_hash`, block
 *   `next_block - 1`; null on rows written before it): a chain reverted below it and mined past it again (a snapshot
 *   reverted under a check, a chain reloaded from an older state, a deep reorg) has another block there, so the reading
 *   starts again instead of skipping the blocks in between (server/channels/withdrawals.ts);
 * - a channel transaction by its hash (`batch_transactions`, per chain epoch): each withdrawal log read and each
 *   recovered claim, settle, deposit or refund asks whether it is recorded already.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_log_cursors').addColumn('block_hash', 'text').execute()
  await db.schema
    .createIndex('batch_transactions_transaction')
    .on('batch_transactions')
    .columns(['chain_epoch', 'transaction'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('batch_transactions_transaction').execute()
  await db.schema.alterTable('channel_log_cursors').dropColumn('block_hash').execute()
}
