import type { Kysely } from 'kysely'

/**
 * Where svc's reading of the batch-settlement contract's withdraw logs has got to, per chain (the Sandbox chain's
 * epoch, or a production network with `--rpc`, epoch ''): `next_block` is the first block not read yet (decimal), so a
 * buyer's withdrawal made while svc was stopped is read at the next start (server/channels/withdrawals.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channel_log_cursors')
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('chain_epoch', 'text', (c) => c.notNull())
    .addColumn('next_block', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('channel_log_cursors_pkey', ['network', 'chain_epoch'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('channel_log_cursors').execute()
}
