import { BadRequestError, ConflictError } from '../../core/errors.js'
import { developmentAcceptProblem } from '../../core/inputs/development-accept.js'
import { type Accept, type ApiRow, type EndpointRow, routeExists } from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import { newId } from '../ids.js'
import { clockOf, sandboxUsdc } from '../sandbox/index.js'
import {
  addressRefusalOf,
  inferSchemas,
  type JsonSchema,
  ownListenerPorts,
  ownListenerTargetedBy,
  type ProbeOptions,
} from '../upstream/index.js'
import type { AcceptInput, UpdateEndpointInput } from '../../core/inputs/endpoint.js'

/** The schema probe never requests one of svc's own listeners, nor follows a redirect onto one. */
const probeOptions = (deps: ServerDeps): ProbeOptions => {
  const refuse = addressRefusalOf(deps)
  return {
    allowed: async (url) => (await ownListenerTargetedBy(url, ownListenerPorts(deps), { refuse })) === undefined,
    ownListeners: () => ownListenerPorts(deps),
    refuse,
    timeoutMs: deps.schemaProbeTimeoutMs,
  }
}

/**
 * The environment's rules on accept options: a development API takes only the Sandbox chain and its USDC
 * (whose EIP-712 `extra` is filled in where missing, and `assetTransferMethod`: permit2 for upto, eip3009 for exact). `at` names the field in error messages.
 */
export function checkAccepts(deps: ServerDeps, api: ApiRow, accepts: AcceptInput[], at = 'accepts'): Accept[] {
  if (api.environment !== 'development') return accepts.map((accept) => ({ ...accept }))
  const usdc = sandboxUsdc(deps)
  return accepts.map((accept, index) => {
    const problem = developmentAcceptProblem(accept, usdc.address)
    if (problem) throw new BadRequestError(`${at}.${index}.${problem.field}: ${problem.message}`)
    // upto pays through Permit2 only; exact defaults to EIP-3009.
    const method = accept.scheme === 'upto' ? { assetTransferMethod: 'permit2' } : {}
    return { ...accept, asset: usdc.address, extra: { ...usdc.extra, ...method, ...accept.extra } }
  })
}

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
  siwx?: { access_seconds: number } | null | undefined
  payment_identifier_required?: boolean | undefined
}

/**
 * The row of a new endpoint (not inserted). With a schema given, both schemas are stored as given and the
 * source is `withSchemas` (`manual` for POST, `openapi` for import); without, they are inferred (`inferred`).
 */
export async function newEndpointRow(
  deps: ServerDeps,
  api: ApiRow,
  input: NewEndpoint,
  withSchemas: 'manual' | 'openapi',
): Promise<EndpointRow> {
  // The time of the request, taken before inference: an import infers several at once, and its endpoints keep the
  // order of its operations (lists order by created_at, then by insertion).
  const now = new Date(clockOf(deps).now())
  const given = input.request_schema != null || input.response_schema != null
  const schemas = given
    ? { request_schema: input.request_schema ?? null, response_schema: input.response_schema ?? null }
    : await inferSchemas(api.upstream_base_url, input.method, input.path_pattern, probeOptions(deps))
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
    payment_identifier_required: input.payment_identifier_required ? 1 : 0,
    ttl_seconds: input.ttl ?? null,
    expires_at: input.ttl === undefined ? null : new Date(now.getTime() + input.ttl * 1000).toISOString(),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    siwx_access_seconds: input.siwx?.access_seconds ?? null,
  }
}

/**
 * The changes a PUT asks of an endpoint (without updated_at; empty when nothing changes). Moving it onto a route
 * the API has is 409 "endpoint already exists"; schemas are inferred again when cleared, or when an endpoint with
 * inferred schemas moves and no schemas are given.
 */
export async function endpointChanges(
  deps: ServerDeps,
  api: ApiRow,
  endpoint: EndpointRow,
  body: UpdateEndpointInput,
): Promise<Partial<EndpointRow>> {
  const changes: Partial<EndpointRow> = {}
  const method = body.method ?? endpoint.method
  const pathPattern = body.path_pattern ?? endpoint.path_pattern
  const moved = method !== endpoint.method || pathPattern !== endpoint.path_pattern
  if (moved) {
    if (await routeExists(deps.db, api.id, method, pathPattern)) throw new ConflictError('endpoint already exists')
    Object.assign(changes, { method, path_pattern: pathPattern })
  }
  if (body.accepts !== undefined) changes.accepts = JSON.stringify(checkAccepts(deps, api, body.accepts))
  if (body.enabled !== undefined) changes.enabled = body.enabled ? 1 : 0
  if (body.description !== undefined) changes.description = body.description
  if (body.siwx !== undefined) changes.siwx_access_seconds = body.siwx?.access_seconds ?? null
  if (body.payment_identifier_required !== undefined)
    changes.payment_identifier_required = body.payment_identifier_required ? 1 : 0

  const schemasGiven = body.request_schema !== undefined || body.response_schema !== undefined
  if (body.clear_schemas || (!schemasGiven && moved && endpoint.schema_source === 'inferred')) {
    // Cleared, or an inferred endpoint that moved: infer again for the (new) route.
    const inferred = await inferSchemas(api.upstream_base_url, method, pathPattern, probeOptions(deps))
    changes.request_schema = inferred.request_schema === null ? null : JSON.stringify(inferred.request_schema)
    changes.response_schema = inferred.response_schema === null ? null : JSON.stringify(inferred.response_schema)
    changes.schema_source = 'inferred'
  } else if (schemasGiven) {
    if (body.request_schema !== undefined)
      changes.request_schema = body.request_schema === null ? null : JSON.stringify(body.request_schema)
    if (body.response_schema !== undefined)
      changes.response_schema = body.response_schema === null ? null : JSON.stringify(body.response_schema)
    changes.schema_source = 'manual'
  }
  return changes
}
