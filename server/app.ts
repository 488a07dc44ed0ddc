import type { Express } from 'express'
import { createControlRouter } from './control/index.js'
import type { ControlDeps } from './control/context.js'
import { createErrorHandler, createJsonApp, notFoundHandler } from './http.js'
import { routeHost } from './hosts.js'

/** One express app for every host: the two control planes by Host name; the gateway hosts come next. */
export function createApp(deps: ControlDeps): Express {
  const app = createJsonApp({ json: false })
  const control = createControlRouter(deps)

  app.use((req, res, next) => {
    const route = routeHost(req.headers.host, deps.hosts)
    if (route.kind === 'control') {
      req.hostEnvironment = route.environment
      return control(req, res, next)
    }
    res.status(404).json({ error: `no API is served at ${route.kind === 'gateway' ? `${route.slug} (${route.environment})` : route.hostname || 'this host'}` })
  })
  app.use(notFoundHandler)
  app.use(createErrorHandler({ log: deps.log }))
  return app
}
