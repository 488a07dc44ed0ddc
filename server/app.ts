import type { Express } from 'express'
import { createControlRouter } from './control/index.js'
import type { ServerDeps } from './deps.js'
import { createGateway, type Gateway } from './gateway/index.js'
import { createPaymentEvents } from './payment-events.js'
import { createErrorHandler, createJsonApp, notFoundHandler } from '../core/http.js'
import { routeHost } from '../core/hosts.js'
import { storageUnavailable } from './data-dir/storage-errors.js'

/**
 * One express app for every host, routed by the Host header: the two control planes, the gateway hosts
 * (`{slug}.dev.localhost`, `{slug}.localhost`, verified custom hostnames); anything else is a JSON 404.
 * Bodies are parsed by the control plane only: the gateway streams them to the upstream untouched.
 */
export function createApp(given: ServerDeps): Express & { gateway: Gateway } {
  const deps: ServerDeps = given.events ? given : { ...given, events: createPaymentEvents() }
  const app = createJsonApp({ json: false })
  const control = createControlRouter(deps)
  const gateway = createGateway(deps)

  app.use((req, res, next) => {
    const route = routeHost(req.headers.host, deps.hosts)
    if (route.kind === 'control') {
      req.hostEnvironment = route.environment
      return control(req, res, next)
    }
    gateway.handle(req, res, route).catch(next)
  })
  app.use(notFoundHandler)
  app.use(createErrorHandler({ log: deps.log, translate: (error) => storageUnavailable(deps.dataDir, error) }))
  return Object.assign(app, { gateway })
}
