import type { OpenedDatabase } from '../../server/db/database.js'

/** An endpoint row of {@link insertSellerRows}: its id and path, and its ttl where it has one. */
export type SellerEndpointRow = {
  id: string
  path_pattern: string
  ttl_seconds?: number | null
  expires_at?: string | null
}

/**
 * Seller `u1` and its API `a1` (development unless told) written straight into the tables, for a data-layer test
 * with no server, and the API's `endpoints`: GET, no accepts or schemas, enabled, without a ttl unless given one.
 */
export async function insertSellerRows(
  { db }: Pick<OpenedDatabase, 'db'>,
  options: { environment?: 'development' | 'production'; endpoints?: SellerEndpointRow[] } = {},
): Promise<void> {
  const { environment = 'development', endpoints = [] } = options
  const now = new Date().toISOString()
  await db
    .insertInto('users')
    .values({
      id: 'u1',
      email: 'a@example.test',
      password_hash: 'h',
      password_salt: 's',
      email_verified_at: null,
      created_at: now,
    })
    .execute()
  await db
    .insertInto('apis')
    .values({
      id: 'a1',
      user_id: 'u1',
      environment,
      name: 'A',
      slug: 'a',
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: null,
      discovery_guidance: null,
      discovery_contact_email: null,
      openapi_version: '1.0.0',
      created_at: now,
      updated_at: now,
    })
    .execute()
  if (endpoints.length === 0) return
  await db
    .insertInto('endpoints')
    .values(
      endpoints.map((endpoint) => ({
        api_id: 'a1',
        method: 'GET',
        accepts: '[]',
        request_schema: null,
        response_schema: null,
        schema_source: 'manual' as const,
        enabled: 1,
        description: null,
        ttl_seconds: null,
        expires_at: null,
        created_at: now,
        updated_at: now,
        ...endpoint,
      })),
    )
    .execute()
}
