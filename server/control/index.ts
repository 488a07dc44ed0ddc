import { Router, type RequestHandler } from 'express'
import type { Environment } from '../../core/hosts.js'
import { createApiKeyRoutes } from './api-keys.js'
import { createApiRoutes } from './apis.js'
import { createAuthRoutes, createSessionRoutes } from './auth.js'
import { createBazaarCatalogRoutes } from './bazaar-catalog.js'
import { createChainRpcRoutes } from './chain-rpc.js'
import { createConfigRoutes } from './config.js'
import { createAuthenticator } from './context.js'
import type { ServerDeps } from '../deps.js'
import { createEndpointRoutes } from './endpoints.js'
import { createOpenApiRoutes } from './openapi-import.js'
import { createSandboxRoutes } from './sandbox-wallet.js'
import { createDiscoveryRoutes } from './discovery.js'
import { createDomainRoutes } from './domains.js'
import { createStatsRoutes } from './stats.js'
import { createSettlementRoutes } from './settlements.js'
import { createChannelRoutes } from './channels.js'
import { createPaymentRoutes } from './payments.js'
import { createContractRoutes } from './openapi-document.js'
import { createRootRoutes } from './root.js'
import { createSnapshotRoutes } from './snapshots.js'
import { createTimeRoutes } from './time.js'
import { createEventRoutes } from './events.js'
import { createFaultRoutes } from './faults.js'
import { jsonBody } from '../../core/http.js'

declare module 'express-serve-static-core' {
  interface Request {
    /** The environment of the control-plane host the request came to. */
    hostEnvironment?: Environment
  }
}

/** The seller-facing control plane: public routes first, then everything behind credentials. */
export function createControlRouter(deps: ServerDeps): Router {
  const router = Router()
  const authenticate = createAuthenticator(deps)
  const authenticated: RequestHandler = async (req, _res, next) => {
    req.principal = await authenticate(req, req.hostEnvironment ?? 'production')
    next()
  }

  // The chain's JSON-RPC takes its body as it came.
  router.use(createChainRpcRoutes(deps))
  router.use(jsonBody())
  router.use(createContractRoutes())
  router.use(createRootRoutes(deps))
  router.use(createConfigRoutes(deps))
  router.use(createBazaarCatalogRoutes(deps))
  router.use(createAuthRoutes(deps))
  // The Sandbox's routes: its owner (a local caller, or the admin token on svc serve) changes the whole Sandbox; a
  // seller's credential reads the clocks and acts on its own APIs' faults (sandbox-caller.ts).
  router.use(createSnapshotRoutes(deps, authenticate))
  router.use(createTimeRoutes(deps, authenticate))
  router.use(createFaultRoutes(deps, authenticate))
  router.use(authenticated)
  router.use(createSessionRoutes(deps))
  router.use(createApiKeyRoutes(deps))
  router.use(createApiRoutes(deps))
  router.use(createEndpointRoutes(deps))
  router.use(createOpenApiRoutes(deps))
  router.use(createSandboxRoutes(deps))
  router.use(createDiscoveryRoutes(deps))
  router.use(createDomainRoutes(deps))
  router.use(createStatsRoutes(deps))
  router.use(createSettlementRoutes(deps))
  router.use(createChannelRoutes(deps))
  router.use(createPaymentRoutes(deps))
  router.use(createEventRoutes(deps))
  return router
}
