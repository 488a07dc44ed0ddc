import { Router } from 'express'
import { z } from 'zod'
import { param, parseBody } from '../../core/http.js'
import { existingRoutes, findOwnedApi, insertNewEndpoints, purgeExpired, routeKey } from '../db/index.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'
import { acceptsSchema, importOperationSchema } from '../../core/inputs/endpoint.js'
import { endpointRecord } from './endpoint-record.js'
import { checkAccepts, newEndpointRow } from './endpoint-service.js'
import { clockOf } from '../sandbox/index.js'
import { required } from '../../core/inputs/validation.js'

const maxSpecChars = 1024 * 1024
const maxOperations = 500
/** Upstream probes (for operations without schemas) running at once. */
const probeConcurrency = 4

const parseSchema = z.strictObject({
  spec: z
    .string({ error: required('expected the OpenAPI document as a string of YAML or JSON') })
    .min(1, { error: 'must not be empty' })
    .max(maxSpecChars, { error: 'at most 1 MB' }),
})

const importSchema = z.strictObject({
  operations: z
    .array(importOperationSchema, {
      error: required('expected an array of operations (as POST /openapi/parse answers them)'),
    })
    .min(1, { error: 'at least one operation' })
    .max(maxOperations, { error: `at most ${maxOperations} operations` }),
  accepts: acceptsSchema,
})

/** Runs `work` over `items`, at most `limit` at a time, keeping the order of the results. */
async function mapLimited<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** OpenAPI parse (no write) and import into an API's endpoints (idempotent: existing method+path pairs are skipped). */
export function createOpenApiRoutes(deps: ServerDeps): Router {
  const router = Router()

  router.post('/openapi/parse', guard({ scopes: ['openapi:read'] }), async (req, res) => {
    const { spec } = parseBody(parseSchema, req.body)
    // Its parser (a JSON Schema dereferencer, YAML) loads on the first import, not with the server.
    const { parseOpenApi } = await import('./openapi-parse.js')
    res.json(await parseOpenApi(spec))
  })

  router.post(
    '/apis/:apiId/openapi/import',
    guard({ scopes: ['openapi:read', 'endpoints:write'], write: true }),
    async (req, res) => {
      const body = parseBody(importSchema, req.body)
      const api = await findOwnedApi(deps.db, principalOf(req), param(req.params.apiId))
      const accepts = checkAccepts(deps, api, body.accepts)
      await purgeExpired(deps.db, api.id, clockOf(deps).nowIso())

      // Rows are prepared (and schemas inferred, which may probe the upstream) outside the transaction, for the
      // operations neither on the API nor earlier in the list; the transaction then re-checks and inserts.
      const before = await existingRoutes(deps.db, api.id)
      const seen = new Set<string>()
      const fresh = body.operations.filter((operation) => {
        const key = routeKey(operation.method, operation.path_pattern)
        if (before.has(key) || seen.has(key)) return false
        seen.add(key)
        return true
      })
      const rows = await mapLimited(fresh, probeConcurrency, (operation) =>
        newEndpointRow(
          deps,
          api,
          {
            method: operation.method,
            path_pattern: operation.path_pattern,
            accepts,
            request_schema: operation.request_schema,
            response_schema: operation.response_schema,
            description: operation.description ?? operation.summary ?? null,
          },
          'openapi',
        ),
      )

      const created = await insertNewEndpoints(deps.db, api.id, rows)
      const createdKeys = new Set(created.map((row) => routeKey(row.method, row.path_pattern)))
      const skipped: { method: string; path_pattern: string; reason: 'exists' }[] = []
      const reported = new Set<string>()
      for (const operation of body.operations) {
        const key = routeKey(operation.method, operation.path_pattern)
        if (createdKeys.has(key) && !reported.has(key)) reported.add(key)
        else skipped.push({ method: operation.method, path_pattern: operation.path_pattern, reason: 'exists' })
      }
      res.json({ created: created.map(endpointRecord), skipped })
    },
  )

  return router
}
