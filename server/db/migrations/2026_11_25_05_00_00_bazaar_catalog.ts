import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.js'

/**
 * The facilitator's bazaar catalog (chain/facilitator/bazaar-catalog.ts): one row per resource and method (or MCP
 * tool), the latest payment's listing, so `GET /discovery/resources` lists the same after a restart.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('bazaar_resources')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('pay_to', 'text', (c) => c.notNull())
    .addColumn('scheme', 'text', (c) => c.notNull())
    .addColumn('network', 'text', (c) => c.notNull())
    .addColumn('item', 'text', (c) => c.notNull())
    .addColumn('updated_at', columnTypes(db).bigint, (c) => c.notNull())
    .execute()
  await db.schema
    .createIndex('bazaar_resources_updated_at')
    .on('bazaar_resources')
    .columns(['updated_at', 'key'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('bazaar_resources').execute()
}
