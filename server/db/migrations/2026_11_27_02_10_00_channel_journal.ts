import type { Kysely } from 'kysely'

/**
 * A payment channel's deposit or refund (x402 batch-settlement) is journaled like every other settlement: its row's
 * `channel_action` (JSON) says what to look for on the chain when svc died between the transaction and its record
 * (server/channels/journal.ts); null for every other payment.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlement_journal').addColumn('channel_action', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlement_journal').dropColumn('channel_action').execute()
}
