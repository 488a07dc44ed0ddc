import type { Kysely } from 'kysely'
import { sandboxNetwork } from '../../core/sandbox-usdc.js'
import { BadRequestError, ConflictError, NotFoundError } from '../../core/errors.js'
import { newId, nowIso } from '../ids.js'
import type { Accept, ApiRow, Database, EndpointRow } from '../db/tables.js'
import { purgeExpired } from '../db/endpoints.js'

export type { Accept }
export { purgeExpired }
import { isUniqueViolation } from '../db/sqlite-errors.js'
import { sandboxUsdc } from '../payment-token.js'
import type { ServerDeps } from '../deps.js'
import type { AcceptInput } from './endpoint-input.js'
import { inferSchemas, type JsonSchema } from '../schema-inference.js'

export * from './endpoint-input.js'
export { inferSchemas, inferJsonSchema, inferredRequestSchema } from '../schema-inference.js'

export type SchemaSource = EndpointRow['schema_source']

/**
 * The environment's rules on accept options: a development API takes only the Sandbox chain and its USDC
 * (whose EIP-712 `extra` is filled in where missing). `at` names the field in error messages.
 */
export function checkAccepts(deps: ServerDeps, api: ApiRow, accepts: AcceptInput[], at = 'accepts'): Accept[] {
  if (api.environment !== 'development') return accepts.map((accept) => ({ ...accept }))
  const usdc = sandboxUsdc(deps)
  return accepts.map((accept, index) => {
    if (accept.network !== sandboxNetwork)
      throw new BadRequestError(`${at}.${index}.network: a development API takes only network "${sandboxNetwork}" (the Sandbox chain)`)
    if (accept.asset.toLowerCase() !== usdc.address.toLowerCase())
      throw new BadRequestError(`${at}.${index}.asset: a development API takes only the Sandbox USDC ${usdc.address}`)
    return { ...accept, asset: usdc.address, extra: { ...usdc.extra, ...accept.extra } }
  })
}

/** The endpoint as the control plane answers it. */
export function endpointRecord(row: EndpointRow) {
  return {
    id: row.id,
    api_id: row.api_id,
    method: row.method,
    path_pattern: row.path_pattern,
    accepts: JSON.parse(row.accepts) as Accept[],
    request_schema: row.request_schema === null ? null : (JSON.parse(row.request_schema) as JsonSchema),
    response_schema: row.response_schema === null ? null : (JSON.parse(row.response_schema) as JsonSchema),
    schema_source: row.schema_source,
    enabled: row.enabled === 1,
    description: row.description,
    ttl: row.ttl_seconds,
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
export type EndpointRecord = ReturnType<typeof endpointRecord>

const toJson = (schema: JsonSchema | null | undefined) => (schema == null ? null : JSON.stringify(schema))

export type NewEndpoint = {
  method: string
  path_pattern: string
  /** Already through {@link checkAccepts}. */
  accepts: Accept[]
  request_schema?: JsonSchema | null | undefined
  response_schema?: JsonSchema | null | undefined
  enabled?: boolean | undefined
  description?: string | null | undefined
  ttl?: number | undefined
}

/**
 * The row of a new endpoint (not inserted). With a schema given, both schemas are stored as given and the
 * source is `withSchemas` (`manual` for POST, `openapi` for import); without, they are inferred (`inferred`).
 */
export async function newEndpointRow(api: ApiRow, input: NewEndpoint, withSchemas: 'manual' | 'openapi'): Promise<EndpointRow> {
  const given = input.request_schema != null || input.response_schema != null
  const schemas = given
    ? { request_schema: input.request_schema ?? null, response_schema: input.response_schema ?? null }
    : await inferSchemas(api.upstream_base_url, input.method, input.path_pattern)
  const now = new Date()
  return {
    id: newId('ep'),
    api_id: api.id,
    method: input.method,
    path_pattern: input.path_pattern,
    accepts: JSON.stringify(input.accepts),
    request_schema: toJson(schemas.request_schema),
    response_schema: toJson(schemas.response_schema),
    schema_source: given ? withSchemas : 'inferred',
    enabled: input.enabled === false ? 0 : 1,
    description: input.description ?? null,
    ttl_seconds: input.ttl ?? null,
    expires_at: input.ttl === undefined ? null : new Date(now.getTime() + input.ttl * 1000).toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
  }
}

/** Inserts an endpoint; a method+path_pattern already on the API is 409 "endpoint already exists". */
export async function insertEndpoint(db: Kysely<Database>, row: EndpointRow): Promise<void> {
  try {
    await db.insertInto('endpoints').values(row).execute()
  } catch (error) {
    if (isUniqueViolation(error)) throw new ConflictError('endpoint already exists')
    throw error
  }
}

/** The endpoints' `METHOD path` keys of an API. */
export async function existingRoutes(db: Kysely<Database>, apiId: string): Promise<Set<string>> {
  const rows = await db.selectFrom('endpoints').select(['method', 'path_pattern']).where('api_id', '=', apiId).execute()
  return new Set(rows.map((row) => routeKey(row.method, row.path_pattern)))
}

/** Whether the API already has an endpoint for this method and path pattern (one indexed lookup). */
export async function routeExists(db: Kysely<Database>, apiId: string, method: string, pathPattern: string): Promise<boolean> {
  const row = await db
    .selectFrom('endpoints')
    .select('id')
    .where('api_id', '=', apiId)
    .where('method', '=', method)
    .where('path_pattern', '=', pathPattern)
    .executeTakeFirst()
  return row !== undefined
}

export const routeKey = (method: string, pathPattern: string) => `${method} ${pathPattern}`

export async function findEndpoint(db: Kysely<Database>, apiId: string, endpointId: string): Promise<EndpointRow> {
  const row = await db.selectFrom('endpoints').selectAll().where('api_id', '=', apiId).where('id', '=', endpointId).executeTakeFirst()
  if (!row) throw new NotFoundError('endpoint not found')
  return row
}
