import type { Kysely } from 'kysely'
import { columnTypes } from '../dialect.js'

/**
 * The answers kept for x402's `payment-identifier` extension (server/payments/identifier.ts): a paid answer is
 * stored under its API, payer and payment id, so a buyer retrying with that id gets it again without a second charge.
 * Bounded by the gateway (an answer's size, its age, the table's total). And `settlements.builder_code`: the
 * `builder-code` extension's attribution a payment carried (JSON `{a, w, s}`), null without one. And
 * `endpoints.payment_identifier_required`: 1 when the seller requires buyers to send a payment-identifier.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('settlements').addColumn('builder_code', 'text').execute()
  await db.schema
    .alterTable('endpoints')
    .addColumn('payment_identifier_required', 'integer', (c) => c.notNull().defaultTo(0))
    .execute()
  await db.schema
    .createTable('payment_answers')
    .addColumn('api_id', 'text', (c) => c.notNull().references('apis.id').onDelete('cascade'))
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('request_key', 'text', (c) => c.notNull())
    .addColumn('payment_key', 'text', (c) => c.notNull())
    .addColumn('settlement_id', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('body', columnTypes(db).blob)
    .addColumn('body_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_answers_pk', ['api_id', 'payer', 'payment_id'])
    .execute()
  await db.schema.createIndex('payment_answers_created').on('payment_answers').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_answers').execute()
  await db.schema.alterTable('settlements').dropColumn('builder_code').execute()
  await db.schema.alterTable('endpoints').dropColumn('payment_identifier_required').execute()
}
