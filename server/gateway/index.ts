import type { Request, Response } from 'express'
import type { ServerDeps } from '../deps.js'
import type { HostRoute } from '../../core/hosts.js'
import { createApiPage } from './api-page/api-page.js'
import { serveTryIt, tryItPath } from './api-page/try-it-route.js'
import { createDiscoveryHandlers } from './discovery-documents.js'
import { ExpressGatewayRequest, writeOutcome } from './express-adapter.js'
import type { GatewayStore } from '../db/gateway-store.js'
import { createPaymentFlow } from './payment-flow.js'
import { notServedMessage, resolveGatewayApi } from './resolve.js'
import { createPaywallOwnRoutes, ownRoutesPrefix } from './paywall/own-routes.js'
import { createPaywallPage } from './paywall/paywall-page.js'
import { LRUCache } from 'lru-cache'
import type { ApiRow } from '../db/tables.js'

export type Gateway = {
  handle(req: Request, res: Response, route: HostRoute): Promise<void>
  /** Starts the payment channels' managers of every batch-settlement receiver (the server's start). */
  startChannelManagers(): Promise<void>
  close(): Promise<void>
}

/**
 * The gateway: the API of the Host, its public discovery documents, and its paid routes. `store` is its own access to
 * the database (server/db/sqlite/gateway-store.ts: the version that keeps the API and endpoint caches current, and the
 * bookkeeping of payments); the gateway closes it.
 */
export function createGateway(deps: ServerDeps, store: GatewayStore): Gateway {
  const discovery = createDiscoveryHandlers(deps)
  const apiPage = createApiPage(deps)
  const apis = createApiCache(deps)
  const flow = createPaymentFlow(deps, store, deps.paidRoutes)
  const paywallRoutes = createPaywallOwnRoutes(deps)
  const paywall = createPaywallPage(deps)
  return {
    async handle(req, res, route) {
      // A request that pays passes the Sandbox's gate before it reads anything: a revert to a snapshot waits for the
      // payments under way and holds new ones back until it is done (they then read the reverted state).
      const leave = req.headers['payment-signature'] === undefined ? undefined : await deps.sandboxState?.enterPayment()
      try {
        await serve(req, res, route)
      } finally {
        leave?.()
      }
    },
    startChannelManagers: () => flow.startChannelManagers(),
    async close() {
      await flow.close()
      store.close()
    },
  }

  /**
   * Serves a gateway request: the API of the Host, its discovery documents, its page, svc's paywall routes, or the
   * paid flow (whose unpaid 402 is the paywall page for a browser).
   */
  async function serve(req: Request, res: Response, route: HostRoute): Promise<void> {
    // On a database file its version is read without waiting (a number).
    const current = store.version()
    let version = typeof current === 'number' ? current : await current
    let api = await apis.resolve(route, version)
    // Before a 404, a version that may lag behind another process's write is read anew (read-your-writes).
    if (!api && store.fresh) {
      const fresh = await store.fresh()
      if (fresh !== version) api = await apis.resolve(route, (version = fresh))
    }
    if (!api) {
      res.status(404).json({ error: await notServedMessage(deps, route, (other) => apis.resolve(other, version)) })
      return
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (req.path === '/openapi.json') return discovery.openapi(req, res, api)
      if (req.path === '/.well-known/x402.json' || req.path === '/.well-known/x402')
        return discovery.wellKnown(req, res, api)
      // A person's browser at `/` gets the API's page (scripts keep their JSON answers).
      if (req.path === '/' && (await apiPage.serve(req, res, api))) return
    }
    // The API page's try-it of a route a link cannot open (POST …): the paywall page for that request.
    if (req.path === tryItPath && req.method === 'GET')
      return serveTryIt(req, res, api, { run: (asked) => flow.run(asked, api, version), paywall, write: writeOutcome })
    // svc's own routes for the paywall page (its script; the Sandbox's RPC and faucet).
    if (req.path.startsWith(ownRoutesPrefix)) return paywallRoutes.serve(req, res, api)
    const outcome = await flow.run(new ExpressGatewayRequest(req, res), api, version)
    // Only a 402 may be the paywall page (a browser's unpaid GET): a paid answer goes straight out.
    if (outcome.type === 'payment-required') {
      const page = paywall.html(req, api, outcome)
      if (page !== undefined) return paywall.write(res, outcome, page)
    }
    writeOutcome(res, outcome)
  }
}

export type ApiCache = {
  /** The API a gateway host serves (see {@link resolveGatewayApi}), read again only when the database changed. */
  resolve(route: HostRoute, version: number): Promise<ApiRow | undefined>
}

/** At most this many hosts are remembered; past it the one asked for longest ago is forgotten. */
const maxHosts = 10_000

/** {@link resolveGatewayApi} cached per host under the {@link GatewayStore} version. */
export function createApiCache(deps: ServerDeps): ApiCache {
  const hosts = new LRUCache<string, { version: number; api: ApiRow | undefined }>({ max: maxHosts })
  return {
    async resolve(route, version) {
      const key =
        route.kind === 'gateway'
          ? `${route.environment} ${route.slug}`
          : route.kind === 'custom'
            ? `custom ${route.hostname}`
            : undefined
      if (key === undefined) return undefined
      const cached = hosts.get(key)
      if (cached && cached.version === version) return cached.api
      const api = await resolveGatewayApi(deps, route)
      hosts.set(key, { version, api })
      return api
    },
  }
}
