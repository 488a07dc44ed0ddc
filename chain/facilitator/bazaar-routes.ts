import { Router, type Request } from 'express'
import { BadRequestError } from '../../core/errors.js'
import { cutText, echoedValueLimit } from '../../core/http.js'
import type { BazaarCatalog, CatalogFilter } from './bazaar-catalog.js'

/** The page size of a listing that names none, and the most one page holds (a larger `limit` gets this many). */
export const catalogPageSize = { default: 100, max: 1000 } as const

const filterNames = ['type', 'payTo', 'scheme', 'network', 'extensions'] as const
const listNames = new Set<string>([...filterNames, 'limit', 'offset'])
const searchNames = new Set<string>([...filterNames, 'query', 'limit', 'cursor'])

/**
 * The route's parameters, each at most once and not empty. Others are ignored: a later x402 client may send
 * parameters this facilitator does not know yet, and its listing must still answer.
 */
function parameters(req: Request, known: Set<string>): Map<string, string> {
  const params = new URL(req.originalUrl, 'http://facilitator').searchParams
  const seen = new Map<string, string>()
  for (const [name, value] of params) {
    const shown = cutText(name, echoedValueLimit)
    if (!known.has(name)) continue
    if (seen.has(name)) throw new BadRequestError(`the query parameter "${shown}" is given more than once`)
    if (value === '') throw new BadRequestError(`the query parameter "${shown}" is empty`)
    if (value.length > 200) throw new BadRequestError(`the query parameter "${shown}" is longer than 200 characters`)
    seen.set(name, value)
  }
  return seen
}

function integer(params: Map<string, string>, name: string, min: number, fallback: number): number {
  const text = params.get(name)
  if (text === undefined) return fallback
  if (!/^\d{1,9}$/.test(text) || Number(text) < min)
    throw new BadRequestError(`${name} must be an integer of at least ${min}, got "${cutText(text, echoedValueLimit)}"`)
  return Number(text)
}

const filterOf = (params: Map<string, string>): CatalogFilter =>
  Object.fromEntries(filterNames.flatMap((name) => (params.has(name) ? [[name, params.get(name)]] : [])))

/**
 * The bazaar's discovery routes (x402's `specs/extensions/bazaar.md`), on the facilitator's URL where
 * `withBazaar(new HTTPFacilitatorClient({ url }))` looks:
 * - `GET /discovery/resources?type&payTo&scheme&network&extensions&limit&offset` →
 *   `{x402Version: 2, items, pagination: {limit, offset, total}}`, newest first; `limit` above
 *   {@link catalogPageSize}.max is served as that many (the answer's `pagination.limit` says so);
 * - `GET /discovery/search?query&…&limit` → `{x402Version: 2, resources, partialResults, pagination: null}`, a
 *   case-insensitive match on each listing (`cursor` is advisory in the spec and ignored here).
 * A malformed parameter (not an integer, below its minimum, repeated, empty) is a 400 `{error}`.
 */
export function createBazaarRoutes(catalog: BazaarCatalog): Router {
  const router = Router()
  router.get('/discovery/resources', async (req, res) => {
    const params = parameters(req, listNames)
    const query = {
      ...filterOf(params),
      limit: Math.min(integer(params, 'limit', 1, catalogPageSize.default), catalogPageSize.max),
      offset: integer(params, 'offset', 0, 0),
    }
    const { items, total } = await catalog.list(query)
    res.json({ x402Version: 2, items, pagination: { limit: query.limit, offset: query.offset, total } })
  })
  router.get('/discovery/search', async (req, res) => {
    const params = parameters(req, searchNames)
    const text = params.get('query')
    if (text === undefined) throw new BadRequestError('the query parameter "query" is required')
    const limit = Math.min(integer(params, 'limit', 1, catalogPageSize.default), catalogPageSize.max)
    const { items, total } = await catalog.search(text, filterOf(params), limit)
    res.json({ x402Version: 2, resources: items, partialResults: total > items.length, pagination: null })
  })
  return router
}
