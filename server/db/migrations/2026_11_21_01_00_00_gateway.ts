import type { Kysely } from 'kysely'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settlements')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('endpoint_id', 'text')
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('asset', 'text', (c) => c.notNull())
    .addColumn('amount', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('pay_to', 'text', (c) => c.notNull())
    .addColumn('transaction', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('settlements_user_time')
    .on('settlements')
    .columns(['user_id', 'environment', 'created_at'])
    .execute()
  await db.schema.createIndex('settlements_api_time').on('settlements').columns(['api_id', 'created_at']).execute()
  await db.schema
    .createIndex('settlements_transaction')
    .on('settlements')
    .columns(['transaction', 'network'])
    .unique()
    .execute()

  await db.schema
    .createTable('api_daily_stats')
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('payment_required', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('paid_requests', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('api_daily_stats_pk', ['api_id', 'day'])
    .execute()
  await db.schema
    .createIndex('api_daily_stats_user')
    .on('api_daily_stats')
    .columns(['user_id', 'environment', 'day'])
    .execute()

  await db.schema
    .createTable('domains')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('api_id', 'text', (c) => c.notNull().references('apis.id').onDelete('cascade'))
    .addColumn('hostname', 'text', (c) => c.notNull().unique())
    .addColumn('verification_token', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('domains_api').on('domains').columns(['api_id']).execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['domains', 'api_daily_stats', 'settlements'])
    await db.schema.dropTable(table).ifExists().execute()
}
