import type { Kysely } from 'kysely'

/**
 * A buyer's unilateral exit from a payment channel (x402 batch-settlement's initiateWithdraw, then finalizeWithdraw
 * once the withdraw delay passed): `batch_channels.withdrawn` is what went back that way (the gateway reads the
 * contract's Withdrawn logs, server/channels/withdrawals.ts); `batch_transactions` takes the kinds
 * `withdraw_request` and `withdraw` beside deposit, claim, settle and refund.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('batch_channels')
    .addColumn('withdrawn', 'text', (c) => c.notNull().defaultTo('0'))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('batch_channels').dropColumn('withdrawn').execute()
}
