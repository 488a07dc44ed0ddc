import type { Kysely } from 'kysely'
import type { ApiKeyRow, Database, Owner, UserRow } from './tables.js'

export async function insertApiKey(db: Kysely<Database>, key: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(key).execute()
}

/** The owner's keys of the owner's environment, newest first (revoked ones included). */
export function listApiKeys(db: Kysely<Database>, owner: Owner): Promise<ApiKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .orderBy('created_at', 'desc')
    .execute()
}

/** One of the owner's keys of the owner's environment. */
export function findOwnedApiKey(db: Kysely<Database>, owner: Owner, keyId: string): Promise<ApiKeyRow | undefined> {
  return db
    .selectFrom('api_keys')
    .selectAll()
    .where('id', '=', keyId)
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .executeTakeFirst()
}

export async function revokeApiKey(db: Kysely<Database>, keyId: string, revokedAt: string): Promise<void> {
  await db.updateTable('api_keys').set({ revoked_at: revokedAt }).where('id', '=', keyId).execute()
}

/** A key found by the hash of its secret, with its user: what authenticating a request needs, in one query. */
export type ApiKeyCaller = { key: Pick<ApiKeyRow, 'id' | 'scopes' | 'revoked_at' | 'environment'>; user: UserRow }

export async function findApiKeyCaller(db: Kysely<Database>, keyHash: string): Promise<ApiKeyCaller | undefined> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select([
      'api_keys.id as key_id',
      'api_keys.scopes as key_scopes',
      'api_keys.revoked_at as key_revoked_at',
      'api_keys.environment as key_environment',
    ])
    .selectAll('users')
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst()
  if (!row) return undefined
  const { key_id, key_scopes, key_revoked_at, key_environment, ...user } = row
  return { key: { id: key_id, scopes: key_scopes, revoked_at: key_revoked_at, environment: key_environment }, user }
}

export async function touchApiKey(db: Kysely<Database>, keyId: string, usedAt: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: usedAt }).where('id', '=', keyId).execute()
}
