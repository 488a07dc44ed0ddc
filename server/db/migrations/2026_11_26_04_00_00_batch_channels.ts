import type { Kysely } from 'kysely'

/**
 * x402 batch-settlement (payment channels) on the gateway's side (server/gateway/batch-*.ts):
 * - `batch_channels`: one row per channel a buyer opened with a receiver, on one chain epoch. `data` is the package's
 *   `Channel` record (its ChannelStorage), null once the scheme let go of it (refunded); the other columns are svc's
 *   record of the channel's life for its seller.
 * - `batch_vouchers`: one row per request paid from a channel (a deposit's first request included).
 * - `batch_transactions`: the channel transactions on chain: deposits, claims (many vouchers in one), settles, refunds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('batch_channels')
    .addColumn('chain_epoch', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('withdraw_delay', 'integer', (c) => c.notNull())
    .addColumn('deposited', 'text', (c) => c.notNull())
    .addColumn('balance', 'text', (c) => c.notNull())
    .addColumn('spent', 'text', (c) => c.notNull())
    .addColumn('claimed', 'text', (c) => c.notNull())
    .addColumn('settled', 'text', (c) => c.notNull())
    .addColumn('refunded', 'text', (c) => c.notNull())
    .addColumn('vouchers', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('data', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('batch_channels_pk', ['chain_epoch', 'channel_id'])
    .execute()
  await db.schema
    .createIndex('batch_channels_receiver')
    .on('batch_channels')
    .columns(['chain_epoch', 'receiver', 'withdraw_delay'])
    .execute()
  await db.schema.createIndex('batch_channels_user').on('batch_channels').columns(['user_id', 'created_at']).execute()
  await db.schema
    .createTable('batch_vouchers')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_epoch', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('cumulative', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('batch_vouchers_channel')
    .on('batch_vouchers')
    .columns(['chain_epoch', 'channel_id', 'created_at'])
    .execute()
  await db.schema
    .createTable('batch_transactions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('chain_epoch', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('channel_id', 'text')
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('vouchers', 'integer', (c) => c.notNull())
    .addColumn('transaction', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('batch_transactions_receiver')
    .on('batch_transactions')
    .columns(['receiver', 'created_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('batch_transactions').execute()
  await db.schema.dropTable('batch_vouchers').execute()
  await db.schema.dropTable('batch_channels').execute()
}
