import { sql, type Kysely } from 'kysely'

/**
 * An upto payment the upstream settles at zero is recorded as a charge of 0 without a transaction (`transaction` is
 * ''): a transaction hash stays unique per network and epoch, but only where there is one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('settlements_transaction').execute()
  await db.schema
    .createIndex('settlements_transaction')
    .on('settlements')
    .columns(['transaction', 'network', 'chain_epoch'])
    .unique()
    .where(sql.ref('transaction'), '<>', '')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('settlements').where('transaction', '=', '').execute()
  await db.schema.dropIndex('settlements_transaction').execute()
  await db.schema
    .createIndex('settlements_transaction')
    .on('settlements')
    .columns(['transaction', 'network', 'chain_epoch'])
    .unique()
    .execute()
}
