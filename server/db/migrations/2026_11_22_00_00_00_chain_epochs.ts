import type { Kysely } from 'kysely'

/**
 * Sandbox chains get an epoch (chain/epoch.ts): settlements carry the epoch of the chain they settled on ('' for
 * production settlements and for those recorded before epochs existed), and `sandbox_chain_epochs` lists the
 * epochs this data dir has seen, the newest last. A transaction hash is unique per network and epoch.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('settlements')
    .addColumn('chain_epoch', 'text', (c) => c.notNull().defaultTo(''))
    .execute()
  await db.schema.dropIndex('settlements_transaction').execute()
  await db.schema
    .createIndex('settlements_transaction')
    .on('settlements')
    .columns(['transaction', 'network', 'chain_epoch'])
    .unique()
    .execute()
  await db.schema
    .createTable('sandbox_chain_epochs')
    .addColumn('epoch', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'integer', (c) => c.notNull().unique())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandbox_chain_epochs').execute()
  await db.schema.dropIndex('settlements_transaction').execute()
  await db.schema
    .createIndex('settlements_transaction')
    .on('settlements')
    .columns(['transaction', 'network'])
    .unique()
    .execute()
  await db.schema.alterTable('settlements').dropColumn('chain_epoch').execute()
}
