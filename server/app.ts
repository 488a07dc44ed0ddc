import type { Express } from 'express'
import { createControlRouter } from './control/index.js'
import type { ServerDeps } from './deps.js'
import { createGateway, directGatewayRoute, type Gateway } from './gateway/index.js'
import { openGatewayStore } from './db/open-gateway-store.js'
import { createPaymentEvents } from './payment-events.js'
import { createErrorHandler, createJsonApp, notFoundHandler } from '../core/http.js'
import { isIP } from 'node:net'
import { hostnameOf, routeHost } from '../core/hosts.js'
import { storageUnavailable } from './data-dir/storage-errors.js'
import { databaseUnavailable } from './db/database-errors.js'
import { answerHealth, createServerLifecycle, isHealthRequest } from './serve/index.js'
import { createClusterRoutes } from './cluster/index.js'
import { demoFaucet } from './sandbox/index.js'

/**
 * One express app for every host, routed by the Host header: the two control planes, the gateway hosts
 * (`{slug}.dev.localhost`, `{slug}.localhost`, verified custom hostnames); anything else is a JSON 404. On `svc up`
 * (not `svc serve`, whose gateways have DNS names) a bare IP's `/gateway/{host}/…` is that gateway host's direct URL.
 * Bodies are parsed by the control plane only: the gateway streams them to the upstream untouched.
 */
export async function createApp(given: ServerDeps): Promise<Express & { gateway: Gateway }> {
  // The given deps themselves when complete: the composition root adds the snapshot store to them after this.
  const deps: ServerDeps =
    given.events && given.lifecycle
      ? given
      : {
          ...given,
          events: given.events ?? createPaymentEvents(),
          lifecycle: given.lifecycle ?? createServerLifecycle(),
        }
  const lifecycle = deps.lifecycle!
  const app = createJsonApp({ json: false })
  // X-Forwarded-For / -Proto count only from the proxies svc serve names (req.ip, req.protocol); never by default.
  const trustProxy = deps.trust?.trustProxy
  if (trustProxy) app.set('trust proxy', (address: string) => trustProxy.has(address))
  const control = createControlRouter(deps)
  const gateway = createGateway(deps, await openGatewayStore(deps.db))

  app.use(lifecycle.track)
  // svc serve --sandbox-chain shared: the owner's internal routes, the others' forwarding of chain routes to it.
  if (deps.chainOwner) app.use(createClusterRoutes(deps, { faucet: demoFaucet }))
  // The direct URLs (gateway/direct-url.ts): a laptop's or a CI job's, off on a server (its trust settings given).
  const direct = !deps.trust
  app.use((req, res, next) => {
    const directRoute = direct ? directGatewayRoute(req, deps.hosts) : undefined
    if (directRoute) return void gateway.handle(req, res, directRoute).catch(next)
    const route = routeHost(req.headers.host, deps.hosts)
    // Health routes answer on the control hosts and on a bare IP (a load balancer's probe); never on a gateway host,
    // where /healthz may be a seller's paid route.
    if (
      isHealthRequest(req) &&
      (route.kind === 'control' || isIP(hostnameOf(req.headers.host).replace(/^\[|\]$/g, '')))
    )
      return void answerHealth(req, res, deps, lifecycle).catch(next)
    if (route.kind === 'control') {
      req.hostEnvironment = route.environment
      return control(req, res, next)
    }
    gateway.handle(req, res, route).catch(next)
  })
  app.use(notFoundHandler)
  // A full data dir, or a database that cannot be reached (a PostgreSQL restart), is a 503 with Retry-After.
  app.use(
    createErrorHandler({
      log: deps.log,
      translate: (error) => storageUnavailable(deps.dataDir, error) ?? databaseUnavailable(error),
    }),
  )
  return Object.assign(app, { gateway })
}
