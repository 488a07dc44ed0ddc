import type { Kysely } from 'kysely'

/**
 * The settlement journal (server/journal/journal.ts): a row is written before a settlement is sent and
 * removed once the paid answer was written; a row left by a process that died is resolved against the chain at the
 * next start. `settlements.delivered` is 0 for a buyer who was charged without getting the answer.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('settlements')
    .addColumn('delivered', 'integer', (c) => c.notNull().defaultTo(1))
    .execute()
  await db.schema
    .createTable('settlement_journal')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('payment_id', 'text', (c) => c.notNull().unique())
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('ephemeral', 'integer', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('pay_to', 'text', (c) => c.notNull())
    .addColumn('nonce', 'text')
    .addColumn('valid_before', 'text')
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('chain_epoch', 'text', (c) => c.notNull())
    .addColumn('settlement_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('settlement_journal').execute()
  await db.schema.alterTable('settlements').dropColumn('delivered').execute()
}
