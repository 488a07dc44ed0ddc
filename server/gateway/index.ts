import type { Request, Response } from 'express'
import type { ServerDeps } from '../deps.js'
import type { HostRoute } from '../../core/hosts.js'
import { createApiCache } from './api-cache.js'
import { createDiscoveryHandlers } from './discovery-documents.js'
import { openGatewayStore } from './gateway-store.js'
import { createPaidRouteHandler } from './paid-route.js'

export type Gateway = {
  handle(req: Request, res: Response, route: HostRoute): Promise<void>
  close(): Promise<void>
}

/** The gateway: the API of the Host, its public discovery documents, and its paid routes. */
export function createGateway(deps: ServerDeps): Gateway {
  const discovery = createDiscoveryHandlers(deps)
  // The gateway's own access to the database: a version that keeps the API and endpoint caches current, and the
  // bookkeeping of payments (see GatewayStore).
  const store = openGatewayStore(deps.db)
  const apis = createApiCache(deps)
  const paid = createPaidRouteHandler(deps, { store })
  return {
    async handle(req, res, route) {
      const api = await apis.resolve(route, await (await store).version())
      if (!api) {
        const name = route.kind === 'gateway' ? route.slug : route.kind === 'custom' || route.kind === 'unknown' ? route.hostname : ''
        res.status(404).json({ error: `no API is served at ${name || 'this host'}` })
        return
      }
      if (req.method === 'GET' || req.method === 'HEAD') {
        if (req.path === '/openapi.json') return discovery.openapi(req, res, api)
        if (req.path === '/.well-known/x402.json' || req.path === '/.well-known/x402') return discovery.wellKnown(req, res, api)
      }
      return paid.handle(req, res, api)
    },
    async close() {
      await paid.close()
      ;(await store).close()
    },
  }
}
