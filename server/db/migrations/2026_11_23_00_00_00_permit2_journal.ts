import type { Kysely } from 'kysely'

/**
 * A settlement journal row names how its payment moves the money (`transfer_method`: `eip3009` or `permit2`), so that
 * a Permit2 payment (exact via Permit2, upto) left behind by a crash is checked on the chain too: its `nonce` is then
 * Permit2's. Rows written before have none: one with a nonce is EIP-3009's, one without cannot be checked.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlement_journal').addColumn('transfer_method', 'text').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('settlement_journal').where('transfer_method', '=', 'permit2').execute()
  await db.schema.alterTable('settlement_journal').dropColumn('transfer_method').execute()
}
