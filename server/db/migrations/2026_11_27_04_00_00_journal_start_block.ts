import type { Kysely } from 'kysely'

/**
 * A settlement journal row names the block its settlement cannot be older than (`from_block`, decimal; null where svc
 * did not know it: a Sandbox row, or a production network without an RPC): recovery on a real chain reads the logs
 * from there, in bounded ranges, not the network's whole history (server/journal/production-chains.ts). A channel
 * action names the process that journaled it (`owner`, as settlement journal rows do), so only the actions of
 * processes that are gone are resolved (server/cluster/reaper.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlement_journal').addColumn('from_block', 'text').execute()
  await db.schema.alterTable('channel_actions').addColumn('owner', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('channel_actions').dropColumn('owner').execute()
  await db.schema.alterTable('settlement_journal').dropColumn('from_block').execute()
}
