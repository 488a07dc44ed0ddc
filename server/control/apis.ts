import { Router } from 'express'
import { BadRequestError } from '../../core/errors.js'
import { param, parseBody } from '../../core/http.js'
import { newId, nowIso } from '../ids.js'
import {
  type ApiRow,
  assertSlugFree,
  deleteApi,
  findOwnedApi,
  insertApi,
  listApis,
  type UpdateableApiRow,
  updateApi,
} from '../db/index.js'
import { createApiSchema, updateApiSchema } from '../../core/inputs/api.js'
import { apiRecord } from './api-record.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import { addressRefusalOf, ownListenerPorts, ownListenerTargetedBy } from '../upstream/index.js'

/** Refuses an upstream that is one of svc's own listeners (in any spelling of loopback, or a name resolving to it). */
async function assertUpstreamAllowed(deps: ServerDeps, url: string): Promise<void> {
  // The other processes of the database as they are now (one may have started a moment ago).
  await deps.trust?.cluster?.refresh()
  const listener = await ownListenerTargetedBy(url, ownListenerPorts(deps), { refuse: addressRefusalOf(deps) })
  if (listener)
    throw new BadRequestError(`upstream_base_url: targets ${listener}; an upstream must be a service of your own`)
}

/**
 * APIs: a seller's upstreams behind the gateway. Each belongs to one environment (the caller's at creation);
 * the other environment's and other sellers' APIs are 404.
 */
export function createApiRoutes(deps: ServerDeps): Router {
  const router = Router()
  const { db } = deps
  const read = guard({ scopes: ['apis:read'] })
  const write = guard({ scopes: ['apis:write'], write: true })

  router.post('/apis', write, async (req, res) => {
    const body = parseBody(createApiSchema, req.body)
    const { user, environment } = principalOf(req)
    await assertUpstreamAllowed(deps, body.upstream_base_url)
    await assertSlugFree(db, environment, body.slug)
    const now = nowIso()
    const row: ApiRow = {
      id: newId('api'),
      user_id: user.id,
      environment,
      name: body.name,
      slug: body.slug,
      upstream_base_url: body.upstream_base_url,
      pay_to_mode: body.pay_to_mode,
      pay_to_address: body.pay_to_address,
      discovery_guidance: body.discovery_guidance ?? null,
      discovery_contact_email: body.discovery_contact_email ?? null,
      openapi_version: body.openapi_version ?? '1.0.0',
      created_at: now,
      updated_at: now,
    }
    await insertApi(db, row)
    res.status(201).json(apiRecord(deps, row))
  })

  router.get('/apis', read, async (req, res) => {
    const rows = await listApis(db, principalOf(req))
    res.json({ apis: rows.map((row) => apiRecord(deps, row)) })
  })

  router.get('/apis/:apiId', read, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    res.json(apiRecord(deps, api))
  })

  router.put('/apis/:apiId', write, async (req, res) => {
    const body = parseBody(updateApiSchema, req.body)
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    if (body.upstream_base_url !== undefined) await assertUpstreamAllowed(deps, body.upstream_base_url)
    const changes: UpdateableApiRow = {}
    for (const [field, value] of Object.entries(body))
      if (value !== undefined) (changes as Record<string, unknown>)[field] = value
    if (Object.keys(changes).length > 0) {
      if (body.slug !== undefined && body.slug !== api.slug)
        await assertSlugFree(db, api.environment, body.slug, api.id)
      changes.updated_at = nowIso()
      await updateApi(db, api.id, changes)
    }
    res.json(apiRecord(deps, { ...api, ...changes } as ApiRow))
  })

  router.delete('/apis/:apiId', write, async (req, res) => {
    const api = await findOwnedApi(db, principalOf(req), param(req.params.apiId))
    await deleteApi(db, api.id)
    res.json({ id: api.id, deleted: true })
  })

  return router
}
