import { sql } from 'kysely'
import { Router } from 'express'
import { ConflictError } from '../../core/errors.js'
import { parseBody } from '../../core/http.js'
import { newId, nowIso } from '../ids.js'
import type { ApiRow, UpdateableApiRow } from '../db/tables.js'
import { apiRecord, assertSlugFree, createApiSchema, findOwnedApi, updateApiSchema, param } from './api-service.js'
import { isUniqueViolation } from '../db/sqlite-errors.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'

/**
 * APIs: a seller's upstreams behind the gateway. Each belongs to one environment (the caller's at creation);
 * the other environment's and other sellers' APIs are 404.
 */
export function createApiRoutes(deps: ServerDeps): Router {
  const router = Router()
  const read = guard({ scopes: ['apis:read'] })
  const write = guard({ scopes: ['apis:write'], write: true })

  router.post('/apis', write, async (req, res) => {
    const body = parseBody(createApiSchema, req.body)
    const { user, environment } = principalOf(req)
    await assertSlugFree(deps, environment, body.slug)
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
    try {
      await deps.db.insertInto('apis').values(row).execute()
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictError('slug already exists')
      throw error
    }
    res.status(201).json(apiRecord(deps, row))
  })

  router.get('/apis', read, async (req, res) => {
    const { user, environment } = principalOf(req)
    const rows = await deps.db
      .selectFrom('apis')
      .selectAll()
      .where('user_id', '=', user.id)
      .where('environment', '=', environment)
      .orderBy('created_at', 'asc')
      // rowid: insertion order, for rows created in the same millisecond.
      .orderBy(sql`rowid`)
      .execute()
    res.json({ apis: rows.map((row) => apiRecord(deps, row)) })
  })

  router.get('/apis/:apiId', read, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    res.json(apiRecord(deps, api))
  })

  router.put('/apis/:apiId', write, async (req, res) => {
    const body = parseBody(updateApiSchema, req.body)
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    const changes: UpdateableApiRow = {}
    for (const [field, value] of Object.entries(body)) if (value !== undefined) (changes as Record<string, unknown>)[field] = value
    if (Object.keys(changes).length > 0) {
      if (body.slug !== undefined && body.slug !== api.slug) await assertSlugFree(deps, api.environment, body.slug, api.id)
      changes.updated_at = nowIso()
      try {
        await deps.db.updateTable('apis').set(changes).where('id', '=', api.id).execute()
      } catch (error) {
        if (isUniqueViolation(error)) throw new ConflictError('slug already exists')
        throw error
      }
    }
    res.json(apiRecord(deps, { ...api, ...changes } as ApiRow))
  })

  router.delete('/apis/:apiId', write, async (req, res) => {
    const api = await findOwnedApi(deps, principalOf(req), param(req.params.apiId))
    await deps.db.transaction().execute(async (trx) => {
      // Foreign keys cascade too; deleting the endpoints first keeps that true without the pragma.
      await trx.deleteFrom('endpoints').where('api_id', '=', api.id).execute()
      await trx.deleteFrom('apis').where('id', '=', api.id).execute()
    })
    res.json({ id: api.id, deleted: true })
  })

  return router
}
