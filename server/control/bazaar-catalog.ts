import { Router, type RequestHandler } from 'express'
import { type BazaarCatalog, createBazaarRoutes } from '../../chain/facilitator/index.js'
import { NotFoundError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { publicBazaarPath } from '../sandbox/index.js'

/**
 * `GET /dev/bazaar/discovery/resources` and `GET /dev/bazaar/discovery/search` on the Sandbox control plane: the
 * Sandbox facilitator's bazaar catalog (chain/facilitator/bazaar-routes.ts, the same answers) at svc's public
 * address, public as a facilitator's listing is. It is the `bazaar_url` of `GET /config/local-dev` on svc serve,
 * whose facilitator stays on loopback; on a team Sandbox process that does not own the chain, the cluster routes
 * forward it to the owner, whose catalog it is (server/cluster/cluster-routes.ts). Nothing else is served there.
 */
export function createBazaarCatalogRoutes(deps: ServerDeps): Router {
  const router = Router()
  // One router per catalog: a team Sandbox process that takes the chain over gets the chain's own.
  const routers = new WeakMap<BazaarCatalog, RequestHandler>()
  const notServed = () =>
    new NotFoundError(
      `svc's bazaar catalog is served at ${controlUrl(deps.hosts, 'development')}${publicBazaarPath}/discovery/resources`,
    )
  router.use(publicBazaarPath, (req, res, next) => {
    const catalog = deps.chain?.facilitator.catalog
    if (req.hostEnvironment !== 'development' || !catalog) throw notServed()
    let routes = routers.get(catalog)
    if (!routes) routers.set(catalog, (routes = createBazaarRoutes(catalog)))
    routes(req, res, (error?: unknown) => next(error ?? notServed()))
  })
  return router
}
