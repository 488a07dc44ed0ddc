import { Router } from 'express'
import { BadRequestError, ConflictError } from '../../core/errors.js'
import { param, parseBody } from '../../core/http.js'
import { nowIso } from '../ids.js'
import { clockOf } from '../sandbox/index.js'
import {
  deleteEndpoint,
  findEndpoint,
  findOwnedApi,
  insertEndpoint,
  listEndpoints,
  purgeExpired,
  routeExists,
  updateEndpoint,
} from '../db/index.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import { createEndpointSchema, updateEndpointSchema } from '../../core/inputs/endpoint.js'
import { endpointRecord } from './endpoint-record.js'
import { checkAccepts, endpointChanges, newEndpointRow } from './endpoint-service.js'

/**
 * Endpoints of an API: method + path pattern + accepts, with schemas given or inferred. Reads leave out expired
 * ephemeral endpoints; writes delete the API's expired ones first, so their routes are free again.
 */
export function createEndpointRoutes(deps: ServerDeps): Router {
  const router = Router()
  const { db } = deps
  /** svc's time (time travel moves it): it decides which ephemeral endpoints expired. */
  const now = () => clockOf(deps).nowIso()
  const read = guard({ scopes: ['endpoints:read'] })
  const write = guard({ scopes: ['endpoints:write'], write: true })

  router.post('/apis/:apiId/endpoints', write, async (req, res) => {
    const body = parseBody(createEndpointSchema, req.body)
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    const accepts = checkAccepts(deps, api, body.accepts)
    await purgeExpired(db, api.id, now())
    // Checked before inference, which may probe the upstream; the unique index decides a race.
    if (await routeExists(db, api.id, body.method, body.path_pattern))
      throw new ConflictError('endpoint already exists')
    const row = await newEndpointRow(deps, api, { ...body, accepts }, 'manual')
    await insertEndpoint(db, row)
    res.status(201).json(endpointRecord(row))
  })

  router.get('/apis/:apiId/endpoints', read, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    res.json({ endpoints: (await listEndpoints(db, api.id, now())).map(endpointRecord) })
  })

  router.get('/apis/:apiId/endpoints/:endpointId', read, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    res.json(endpointRecord(await findEndpoint(db, api.id, param(req.params.endpointId), now())))
  })

  router.put('/apis/:apiId/endpoints/:endpointId', write, async (req, res) => {
    if (req.body && typeof req.body === 'object' && Object.hasOwn(req.body, 'ttl'))
      throw new BadRequestError('ttl can only be set at creation')
    const body = parseBody(updateEndpointSchema, req.body)
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    await purgeExpired(db, api.id, now())
    const endpoint = await findEndpoint(db, api.id, param(req.params.endpointId), now())
    const changes = await endpointChanges(deps, api, endpoint, body)
    if (Object.keys(changes).length > 0) {
      changes.updated_at = nowIso()
      await updateEndpoint(db, endpoint.id, changes)
    }
    res.json(endpointRecord({ ...endpoint, ...changes }))
  })

  router.delete('/apis/:apiId/endpoints/:endpointId', write, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    const endpoint = await findEndpoint(db, api.id, param(req.params.endpointId), now())
    await deleteEndpoint(db, endpoint.id)
    res.json({ id: endpoint.id, deleted: true })
  })

  return router
}
