import type { Kysely } from 'kysely'

/**
 * The batch-settlement actions the facilitator sent (chain/batch-settlement/channel-actions.ts): deposits, claims, settles
 * and refunds of payment channels, written `pending` before the transaction is sent and finished with its outcome, so
 * one under way when svc died is resolved from the chain at the next start (server/channels/action-recovery.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channel_actions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('chain_epoch', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('receiver', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('payer', 'text')
    .addColumn('channel_id', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('from_block', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('transaction', 'text')
    .addColumn('amount', 'text')
    .addColumn('error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .execute()
  await db.schema.createIndex('channel_actions_state').on('channel_actions').columns(['state', 'created_at']).execute()
  await db.schema
    .createIndex('channel_actions_receiver')
    .on('channel_actions')
    .columns(['receiver', 'created_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('channel_actions').execute()
}
