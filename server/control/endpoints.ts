import { sql } from 'kysely'
import { Router } from 'express'
import { BadRequestError, ConflictError } from '../../core/errors.js'
import { parseBody } from '../../core/http.js'
import { nowIso } from '../ids.js'
import type { EndpointRow } from '../db/tables.js'
import { findOwnedApi, param } from './api-service.js'
import { isUniqueViolation } from '../db/sqlite-errors.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import {
  checkAccepts,
  createEndpointSchema,
  endpointRecord,
  routeExists,
  findEndpoint,
  inferSchemas,
  insertEndpoint,
  newEndpointRow,
  purgeExpired,
  updateEndpointSchema,
} from './endpoint-service.js'

/** Endpoints of an API: method + path pattern + accepts, with schemas given or inferred. */
export function createEndpointRoutes(deps: ServerDeps): Router {
  const router = Router()
  const read = guard({ scopes: ['endpoints:read'] })
  const write = guard({ scopes: ['endpoints:write'], write: true })

  router.post('/apis/:apiId/endpoints', write, async (req, res) => {
    const body = parseBody(createEndpointSchema, req.body)
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const accepts = checkAccepts(deps, api, body.accepts)
    await purgeExpired(deps.db, api.id)
    // Checked before inference, which may probe the upstream; the unique index decides a race.
    if (await routeExists(deps.db, api.id, body.method, body.path_pattern)) throw new ConflictError('endpoint already exists')
    const row = await newEndpointRow(api, { ...body, accepts }, 'manual')
    await insertEndpoint(deps.db, row)
    res.status(201).json(endpointRecord(row))
  })

  router.get('/apis/:apiId/endpoints', read, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    await purgeExpired(deps.db, api.id)
    const rows = await deps.db
      .selectFrom('endpoints')
      .selectAll()
      .where('api_id', '=', api.id)
      .orderBy('created_at', 'asc')
      // rowid: insertion order, for rows created in the same millisecond (an import).
      .orderBy(sql`rowid`)
      .execute()
    res.json({ endpoints: rows.map(endpointRecord) })
  })

  router.get('/apis/:apiId/endpoints/:endpointId', read, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    await purgeExpired(deps.db, api.id)
    res.json(endpointRecord(await findEndpoint(deps.db, api.id, param(req.params.endpointId))))
  })

  router.put('/apis/:apiId/endpoints/:endpointId', write, async (req, res) => {
    if (req.body && typeof req.body === 'object' && Object.hasOwn(req.body, 'ttl')) throw new BadRequestError('ttl can only be set at creation')
    const body = parseBody(updateEndpointSchema, req.body)
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    await purgeExpired(deps.db, api.id)
    const endpoint = await findEndpoint(deps.db, api.id, param(req.params.endpointId))

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

    const schemasGiven = body.request_schema !== undefined || body.response_schema !== undefined
    if (body.clear_schemas || (!schemasGiven && moved && endpoint.schema_source === 'inferred')) {
      // Cleared, or an inferred endpoint that moved: infer again for the (new) route.
      const inferred = await inferSchemas(api.upstream_base_url, method, pathPattern)
      changes.request_schema = inferred.request_schema === null ? null : JSON.stringify(inferred.request_schema)
      changes.response_schema = inferred.response_schema === null ? null : JSON.stringify(inferred.response_schema)
      changes.schema_source = 'inferred'
    } else if (schemasGiven) {
      if (body.request_schema !== undefined) changes.request_schema = body.request_schema === null ? null : JSON.stringify(body.request_schema)
      if (body.response_schema !== undefined) changes.response_schema = body.response_schema === null ? null : JSON.stringify(body.response_schema)
      changes.schema_source = 'manual'
    }

    if (Object.keys(changes).length > 0) {
      changes.updated_at = nowIso()
      try {
        await deps.db.updateTable('endpoints').set(changes).where('id', '=', endpoint.id).execute()
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError('endpoint already exists')
        throw error
      }
    }
    res.json(endpointRecord({ ...endpoint, ...changes }))
  })

  router.delete('/apis/:apiId/endpoints/:endpointId', write, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const endpoint = await findEndpoint(deps.db, api.id, param(req.params.endpointId))
    await deps.db.deleteFrom('endpoints').where('id', '=', endpoint.id).execute()
    res.json({ id: endpoint.id, deleted: true })
  })

  return router
}
