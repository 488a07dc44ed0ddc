import { isIP } from 'node:net'
import type { Request } from 'express'
import { NotFoundError } from '../../core/errors.js'
import {
  directGatewayPath,
  type HostRoute,
  type Hosts,
  hostnameOf,
  isDomainName,
  routeHost,
  splitDirectTarget,
} from '../../core/hosts.js'
import { cutText, echoedValueLimit } from '../../core/http.js'

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
