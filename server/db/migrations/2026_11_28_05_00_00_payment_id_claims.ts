import type { Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/**
 * PostgreSQL only, `payment_id_claims`: the payment-identifier ids in flight across processes (server/db/
 * payment-id-claims.ts). One row per API, payer and id while its first request runs (`claimed_by`, a process owner,
 * until `claimed_until`), deleted when it is answered; a second request with the id, on any process, gets the 409 of
 * an id in flight. SQLite is one process: its in-flight ids stay in memory.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name !== 'postgres') return
  await db.schema
    .createTable('payment_id_claims')
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('payer', 'text', (c) => c.notNull())
    .addColumn('payment_id', 'text', (c) => c.notNull())
    .addColumn('request_key', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_id_claims_pk', ['api_id', 'payer', 'payment_id'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'postgres') await db.schema.dropTable('payment_id_claims').execute()
}
