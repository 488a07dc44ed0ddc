import type { ApiRow } from '../db/index.js'
import { directGatewayUrl, gatewayHost, type HostRoute, publicOrigin } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'

/** The API a gateway host serves: `{slug}.dev.localhost` / `{slug}.localhost`, or a verified custom hostname. */
export async function resolveGatewayApi(deps: ServerDeps, route: HostRoute): Promise<ApiRow | undefined> {
  if (route.kind === 'gateway')
    return deps.db
      .selectFrom('apis')
      .selectAll()
      .where('environment', '=', route.environment)
      .where('slug', '=', route.slug)
      .executeTakeFirst()
  if (route.kind === 'custom')
    return deps.db
      .selectFrom('domains')
      .innerJoin('apis', 'apis.id', 'domains.api_id')
      .selectAll('apis')
      .where('domains.hostname', '=', route.hostname)
      .where('domains.status', '=', 'verified')
      .executeTakeFirst()
  return undefined
}

/**
 * The gateway's 404 for a host that serves no API, naming where the API is when its slug exists in the other
 * environment: `weather.localhost` (production) for a Sandbox API answers "… did you mean
 * http://weather.dev.localhost:4020/? (weather is a Sandbox API)", and the other way round. `resolve` looks the other
 * host up (the gateway passes its cache, so a flood of 404s reads the database once per change). `direct`: the request
 * came by a direct URL (server/app.ts), and the one named is the other host's direct URL.
 */
export async function notServedMessage(
  deps: ServerDeps,
  route: HostRoute,
  resolve: (route: HostRoute) => Promise<ApiRow | undefined> = (other) => resolveGatewayApi(deps, other),
  direct = false,
): Promise<string> {
  if (route.kind !== 'gateway') {
    const hostname = route.kind === 'custom' || route.kind === 'unknown' ? route.hostname : ''
    return `no API is served at ${hostname || 'this host'}`
  }
  const here = gatewayHost(deps.hosts, route.environment, route.slug)
  const other = route.environment === 'production' ? 'development' : 'production'
  const elsewhere = await resolve({ ...route, environment: other })
  if (!elsewhere) return `no API is served at ${here}`
  const otherHost = gatewayHost(deps.hosts, other, route.slug)
  const url = `${direct ? directGatewayUrl(deps.hosts.port, otherHost) : publicOrigin(deps.hosts, otherHost)}/`
  const what = other === 'development' ? 'a Sandbox API' : 'a production API'
  return `no API is served at ${here}; did you mean ${url}? (${route.slug} is ${what})`
}
