import type { Kysely } from 'kysely'
import { LRUCache } from 'lru-cache'
import { machineClock, type Clock } from '../../core/clock.js'
import { compareSpecificity, compilePattern, type CompiledPattern } from '../../core/path-pattern.js'
import {
  type Accept,
  type ApiRow,
  type Database,
  type EndpointRow,
  type GatewayStore,
  purgeExpired,
} from '../db/index.js'

/** One endpoint as the gateway serves it; per-facilitator derived data (requirements, 402s) hangs off `derived`. */
export type GatewayRoute = {
  endpoint: EndpointRow
  accepts: Accept[]
  /**
   * The accept of `accepts` that takes batch-settlement (payment channels), read once per row: only such a route asks
   * the channels for its resource server (server/channels/servers.ts `serverFor`). Undefined for the others.
   */
  batch: Accept | undefined
  /**
   * The accept that takes auth-capture (escrow payments), read once per row: only such a route asks for its seller's
   * resource server (server/escrow/flow.ts `serverFor`) and has its offer rebuilt each deadline step. Undefined for
   * the others.
   */
  escrow: Accept | undefined
  compiled: CompiledPattern
  /** ms since the epoch; null = not ephemeral. */
  expiresAt: number | null
  /** Caches of data derived from this exact row and its API (payment requirements, encoded 402s). */
  derived: Map<unknown, unknown>
}

export type EndpointTable = {
  /**
   * The API's enabled, unexpired endpoints, most specific pattern first. Reads the endpoints only when the database
   * changed (`version`, from the {@link GatewayStore}) since they were read, so control-plane changes take effect on
   * the next request.
   */
  routesOf(api: ApiRow, version: number): Promise<GatewayRoute[]>
  /**
   * What {@link routesOf} would answer when it needs no read (read at `version`, the API unchanged, none of them
   * expired), else undefined: the gateway's unpaid 402 without a promise (server/gateway/index.ts).
   */
  peek(api: ApiRow, version: number): GatewayRoute[] | undefined
}

type Entry = {
  version: number
  apiStamp: string
  rows: Map<string, GatewayRoute>
  routes: GatewayRoute[]
  purging?: Promise<void>
}

/**
 * Endpoint list per API, compiled and cached under the database's version (see {@link GatewayStore}). On a
 * change, rows whose content did not change keep their route object and its derived caches (requirements, 402s).
 * Ephemeral endpoints expire by `clock` (svc's, which time travel moves).
 */
export function createEndpointTable(db: Kysely<Database>, clock: Clock = machineClock): EndpointTable {
  // The APIs served lately: a sandbox with more than this many APIs reads the others' endpoints again when asked.
  const entries = new LRUCache<string, Entry>({ max: 10_000 })

  return {
    async routesOf(api, current) {
      const now = clock.now()
      const apiStamp = apiStampOf(api)
      let entry = entries.get(api.id)
      if (!entry || entry.version !== current || entry.apiStamp !== apiStamp) {
        const rows = await db
          .selectFrom('endpoints')
          .selectAll()
          .where('api_id', '=', api.id)
          .where('enabled', '=', 1)
          .execute()
        const reuse = entry && entry.apiStamp === apiStamp ? entry.rows : undefined
        const byId = new Map<string, GatewayRoute>()
        for (const row of rows) {
          const previous = reuse?.get(row.id)
          byId.set(row.id, previous && sameRow(previous.endpoint, row) ? previous : toRoute(row))
        }
        entry = {
          version: current,
          apiStamp,
          rows: byId,
          routes: [...byId.values()].sort((a, b) => compareSpecificity(a.compiled, b.compiled)),
        }
        entries.set(api.id, entry)
      }
      const routes = entry.routes
      if (!routes.some((route) => route.expiresAt !== null && route.expiresAt <= now)) return routes
      // Expired ephemeral endpoints never match; they are deleted too (once per cached list), as the control plane does.
      if (!entry.purging) entry.purging = purgeExpired(db, api.id, new Date(now).toISOString()).catch(() => {})
      return routes.filter((route) => route.expiresAt === null || route.expiresAt > now)
    },
    peek(api, current) {
      const entry = entries.get(api.id)
      if (!entry || entry.version !== current || entry.apiStamp !== apiStampOf(api)) return undefined
      const now = clock.now()
      for (const route of entry.routes) if (route.expiresAt !== null && route.expiresAt <= now) return undefined
      return entry.routes
    },
  }
}

/** What of an API shapes the derived data of its routes (requirements, 402s): a change rebuilds them. */
const apiStampOf = (api: ApiRow) => `${api.updated_at}|${api.pay_to_address}|${api.name}`

function toRoute(row: EndpointRow): GatewayRoute {
  const accepts = JSON.parse(row.accepts) as Accept[]
  return {
    endpoint: row,
    accepts,
    batch: accepts.find((accept) => accept.scheme === 'batch-settlement'),
    escrow: accepts.find((accept) => accept.scheme === 'auth-capture'),
    compiled: compilePattern(row.method, row.path_pattern),
    expiresAt: row.expires_at === null ? null : Date.parse(row.expires_at),
    derived: new Map(),
  }
}

function sameRow(a: EndpointRow, b: EndpointRow): boolean {
  for (const key of Object.keys(b) as (keyof EndpointRow)[]) if (a[key] !== b[key]) return false
  return true
}
