import type { Express, Request, Response } from 'express'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TLSSocket } from 'node:tls'
import type { AddressList } from '../core/address-list.js'
import { createControlRouter } from './control/index.js'
import type { ServerDeps } from './deps.js'
import { createGateway, type Gateway, writeKnown402 } from './gateway/index.js'
import { databaseUnavailable, openGatewayStore } from './db/index.js'
import { createPaymentEvents } from './payment-events.js'
import { createErrorHandler, createJsonApp, cutText, echoedValueLimit, notFoundHandler } from '../core/http.js'
import { NotFoundError } from '../core/errors.js'
import { isIP } from 'node:net'
import {
  directGatewayPath,
  type HostRoute,
  type Hosts,
  hostnameOf,
  isDomainName,
  routeHost,
  splitDirectTarget,
} from '../core/hosts.js'
import { storageUnavailable } from './data-dir/index.js'
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
  // The direct URLs (directGatewayRoute below): a laptop's or a CI job's, off on a server (its trust settings given).
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
  // An unpaid request to a gateway host whose 402 is known goes out before express (its request set-up and routing
  // took a sixth of such a 402's CPU: issue 40); everything else goes through the app above.
  const expressHandle = (app as unknown as AppHandle).handle.bind(app)
  ;(app as unknown as AppHandle).handle = (req, res, next) => {
    if (lifecycle.draining || (direct && req.url!.startsWith(underPrefix))) return expressHandle(req, res, next)
    const route = routeHost(req.headers.host, deps.hosts)
    const outcome =
      route.kind === 'gateway' || route.kind === 'custom'
        ? gateway.unpaid(req, res, route, protocolOf(req, trustProxy))
        : undefined
    if (!outcome) return expressHandle(req, res, next)
    lifecycle.track(req as Request, res as Response, noop)
    writeKnown402(res, outcome)
  }
  // A full data dir, or a database that cannot be reached (a PostgreSQL restart), is a 503 with Retry-After.
  app.use(
    createErrorHandler({
      log: deps.log,
      translate: (error) => storageUnavailable(deps.dataDir, error) ?? databaseUnavailable(error),
    }),
  )
  return Object.assign(app, { gateway })
}

/** The handler express's app function calls for each request (express/lib/application.js `app.handle`). */
type AppHandle = { handle(req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void }

const noop = () => {}

/**
 * express's `req.protocol` (express/lib/request.js) under the app's `trust proxy` above: https on a TLS socket, else
 * http, unless the peer is a trusted proxy, whose X-Forwarded-Proto (its first value) says.
 */
function protocolOf(req: IncomingMessage, trustProxy: AddressList | undefined): string {
  const protocol = (req.socket as TLSSocket).encrypted ? 'https' : 'http'
  if (!trustProxy?.has(req.socket.remoteAddress!)) return protocol
  // One value: node joins a repeated X-Forwarded-Proto with commas.
  const header = (req.headers['x-forwarded-proto'] as string | undefined) || protocol
  const comma = header.indexOf(',')
  return (comma === -1 ? header : header.slice(0, comma)).trim()
}

/** What a direct URL's path starts with (a constant: every request to svc's listener is asked). */
const underPrefix = `${directGatewayPath}/`

/** A direct URL's shape, for the 404s. */
const shape = `${directGatewayPath}/{gateway host}/{path}, such as ${directGatewayPath}/weather.dev.localhost/forecast`

/**
 * The direct URLs: on a Host that is an IP address (svc up's listener, 127.0.0.1), `/gateway/{host}/{path}` is the
 * request `/{path}` to the gateway host `{host}` (Sandbox, production or a verified custom hostname), with no name to
 * resolve. It sets `req.url` to the gateway's path and `req.baseUrl` to the prefix (`/gateway/{host}`: express's
 * name for a mount path) and keeps the Host header and `req.originalUrl`, so the 402's resource URL, the discovery
 * documents and the pages name the URL the buyer used. The route of the request, or undefined when it is not one (any
 * other path, or a Host that is a name: on a gateway host `/gateway/…` is the API's own path). A host part that is no
 * gateway host is a 404.
 */
export function directGatewayRoute(req: Request, hosts: Hosts): HostRoute | undefined {
  if (!req.url.startsWith(underPrefix)) return undefined
  if (!isIP(hostnameOf(req.headers.host).replace(/^\[|\]$/g, ''))) return undefined
  const split = splitDirectTarget(req.url)!
  if (!isDomainName(split.host))
    throw new NotFoundError(
      `no gateway host in ${cutText(req.url.split('?')[0]!, echoedValueLimit)}: a direct URL is ${shape}`,
    )
  const route = routeHost(split.host, hosts)
  if (route.kind === 'control' || route.kind === 'unknown')
    throw new NotFoundError(`${split.host} is no gateway host: a direct URL is ${shape}`)
  req.url = split.url
  req.baseUrl = split.prefix
  return route
}
