import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.js'

/**
 * svc's clock offset (`svc time advance`) belongs to the chain it was moved with: each Sandbox chain epoch keeps its
 * own, so a restart that reloads the chain keeps it and a chain that starts empty starts at the machine's time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sandbox_chain_epochs')
    // Milliseconds: a 4-byte integer (PostgreSQL's) overflows after 24.8 days.
    .addColumn('clock_offset_ms', columnTypes(db).bigint, (c) => c.notNull().defaultTo(0))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sandbox_chain_epochs').dropColumn('clock_offset_ms').execute()
}
