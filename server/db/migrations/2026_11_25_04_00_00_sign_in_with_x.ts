import type { Kysely } from 'kysely'

/**
 * Sign-in-with-x (x402's `sign-in-with-x` extension): an endpoint's access window (`siwx_access_seconds`, null when
 * off), the nonces of sign-ins already served (a signed message is good once), and an index to find a payer's recent
 * settlements of an endpoint.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('endpoints').addColumn('siwx_access_seconds', 'integer').execute()
  await db.schema
    .createTable('siwx_nonces')
    .addColumn('nonce', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute()
  await db.schema.createIndex('siwx_nonces_expiry').on('siwx_nonces').column('expires_at').execute()
  await db.schema
    .createIndex('settlements_endpoint_time')
    .on('settlements')
    .columns(['endpoint_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('settlements_endpoint_time').execute()
  await db.schema.dropTable('siwx_nonces').execute()
  await db.schema.alterTable('endpoints').dropColumn('siwx_access_seconds').execute()
}
