import type { Request, Response } from 'express'
import type { ControlDeps } from '../control/context.js'
import type { HostRoute } from '../hosts.js'
import { createDiscoveryHandlers } from './discovery-documents.js'
import { createPaidRouteHandler } from './paid-route.js'
import { resolveGatewayApi } from './resolve.js'

export type Gateway = {
  handle(req: Request, res: Response, route: HostRoute): Promise<void>
  close(): Promise<void>
}

/** The gateway: the API of the Host, its public discovery documents, and its paid routes. */
export function createGateway(deps: ControlDeps): Gateway {
  const discovery = createDiscoveryHandlers(deps)
  const paid = createPaidRouteHandler(deps)
  return {
    async handle(req, res, route) {
      const api = await resolveGatewayApi(deps, route)
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
    close: () => paid.close(),
  }
}
