import type { Kysely } from 'kysely'
import { dialectOf } from '../dialect.js'

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('password_salt', 'text', (c) => c.notNull())
    .addColumn('email_verified_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('email_verifications')
    .addColumn('token', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('outbox')
    // SQLite's autoincrement; PostgreSQL's identity (Kysely's autoIncrement() would write MySQL's auto_increment there).
    .addColumn('id', dialectOf(db).name === 'postgres' ? 'bigint' : 'integer', (c) =>
      dialectOf(db).name === 'postgres'
        ? c.primaryKey().generatedByDefaultAsIdentity()
        : c.primaryKey().autoIncrement(),
    )
    .addColumn('to_email', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('token', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .addColumn('revoked_at', 'text')
    .execute()
  await db.schema.createIndex('api_keys_user').on('api_keys').columns(['user_id', 'environment']).execute()

  await db.schema
    .createTable('apis')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('environment', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('upstream_base_url', 'text', (c) => c.notNull())
    .addColumn('pay_to_mode', 'text', (c) => c.notNull())
    .addColumn('pay_to_address', 'text')
    .addColumn('discovery_guidance', 'text')
    .addColumn('discovery_contact_email', 'text')
    .addColumn('openapi_version', 'text', (c) => c.notNull().defaultTo('1.0.0'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('apis_environment_slug', ['environment', 'slug'])
    .execute()
  await db.schema.createIndex('apis_user').on('apis').columns(['user_id', 'environment']).execute()

  await db.schema
    .createTable('endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('api_id', 'text', (c) => c.notNull().references('apis.id').onDelete('cascade'))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('path_pattern', 'text', (c) => c.notNull())
    .addColumn('accepts', 'text', (c) => c.notNull())
    .addColumn('request_schema', 'text')
    .addColumn('response_schema', 'text')
    .addColumn('schema_source', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('description', 'text')
    .addColumn('ttl_seconds', 'integer')
    .addColumn('expires_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('endpoints_api_method_path', ['api_id', 'method', 'path_pattern'])
    .execute()

  await db.schema.createIndex('endpoints_expiry').on('endpoints').columns(['api_id', 'expires_at']).execute()

  await db.schema
    .createTable('sandbox_wallets')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('encrypted_private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['sandbox_wallets', 'endpoints', 'apis', 'api_keys', 'outbox', 'email_verifications', 'users'])
    await db.schema.dropTable(table).ifExists().execute()
}
