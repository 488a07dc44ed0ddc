import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

/**
 * Claims that hold across processes (issue 26 item 3; server/cluster/payment-claims.ts):
 * - `settlement_journal.state`: `claimed` (a request of this process holds the payment: nothing was sent to the
 *   facilitator yet), `settling` (its settlement is sent or about to be), `abandoned` (the settlement failed or broke
 *   off: the row waits for the sweeper, and a retry of the same payment may take it over). SQLite writes rows at
 *   settlement time only (its claims are in memory: one process), so its rows are `settling`.
 * - PostgreSQL only, `endpoint_claims`: the payment holding a one-time endpoint (`claimed_by`, a process owner, until
 *   `claimed_until`), and once that payment settled, the endpoint's tombstone (`deleted_at`, kept 10 minutes) so
 *   every process answers 410 for it. A table of its own: an update of `endpoints` would move the gateway's cache
 *   version (migration 2026_11_26_07's triggers) and empty every process's caches twice per one-time payment.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('settlement_journal')
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('settling'))
    .execute()
  if (dialectOf(db).name !== 'postgres') return
  await db.schema
    .createTable('endpoint_claims')
    .addColumn('endpoint_id', 'text', (c) => c.primaryKey())
    .addColumn('api_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path_pattern', 'text', (c) => c.notNull())
    .addColumn('claimed_by', 'text', (c) => c.notNull())
    .addColumn('claimed_until', 'timestamptz', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('endpoint_claims_tombstones')
    .on('endpoint_claims')
    .columns(['api_id', 'deleted_at'])
    .where(sql.ref('deleted_at'), 'is not', null)
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  if (dialectOf(db).name === 'postgres') await db.schema.dropTable('endpoint_claims').execute()
  await db.schema.alterTable('settlement_journal').dropColumn('state').execute()
}
