/** `production` (live) or `development` (Sandbox). Every API, key and settlement belongs to one. */
export type Environment = 'production' | 'development'

export const environments: readonly Environment[] = ['production', 'development']

/** The port `svc up` listens on unless told otherwise. */
export const defaultPort = 4020

/** The start of every API key's secret, by environment: the prefix alone tells which control plane a key is for. */
export const apiKeyPrefixes = { production: 'svc_live_', development: 'svc_sandbox_' } as const satisfies Record<
  Environment,
  string
>

/** The environment an API key is bound to, from its prefix. */
export function keyEnvironment(apiKey: string): Environment | undefined {
  if (apiKey.startsWith(apiKeyPrefixes.production)) return 'production'
  if (apiKey.startsWith(apiKeyPrefixes.development)) return 'development'
  return undefined
}

/**
 * The host names svc answers on. All resolve to the loopback address with no set-up in curl and browsers
 * (`localhost` and `*.localhost`); one port serves them all, routed by the Host header.
 */
export type Hosts = {
  /** Production gateway domain: `{slug}.localhost`. */
  platformDomain: string
  /** Sandbox gateway domain: `{slug}.dev.localhost`. */
  sandboxPlatformDomain: string
  /** Production control plane: {base_url}. */
  controlHost: string
  /** Sandbox control plane: {sandbox_base_url}. */
  sandboxControlHost: string
  port: number
  /**
   * How clients reach svc when it is not straight on `port` (svc serve behind a TLS proxy: https on 443): the scheme
   * and port of the URLs svc hands out. @defaultValue http on `port`
   */
  public?: { scheme: 'http' | 'https'; port?: number | undefined } | undefined
}

export function defaultHosts(port: number): Hosts {
  return {
    platformDomain: 'localhost',
    sandboxPlatformDomain: 'dev.localhost',
    controlHost: 'api.localhost',
    sandboxControlHost: 'sandbox.localhost',
    port,
  }
}

/**
 * The hosts of a server (`svc serve`): gateways at `{slug}.{platformDomain}` (production) and
 * `{slug}.{sandboxPlatformDomain}` (Sandbox; the spec's `{slug}.dev.{platform_domain}` by default), control planes at
 * `api.{platformDomain}` ({base_url}) and `sandbox.{platformDomain}` ({sandbox_base_url}). Plain `localhost` and
 * loopback addresses still reach the production control plane (a health check on the machine itself).
 */
export function platformHosts(
  port: number,
  domains: { platformDomain: string; sandboxPlatformDomain?: string | undefined },
): Hosts {
  const platformDomain = domains.platformDomain.toLowerCase().replace(/\.$/, '')
  return {
    platformDomain,
    sandboxPlatformDomain: domains.sandboxPlatformDomain?.toLowerCase().replace(/\.$/, '') ?? `dev.${platformDomain}`,
    controlHost: `api.${platformDomain}`,
    sandboxControlHost: `sandbox.${platformDomain}`,
    port,
  }
}

/** Whether `name` is a DNS name svc can serve under: dot-separated labels of a-z, 0-9 and inner hyphens. */
export const isDomainName = (name: string): boolean =>
  name.length <= 253 && name.replace(/\.$/, '').toLowerCase().split('.').every(isSlug)

/** Slugs no API may take: they name the kit's own hosts or would confuse people. */
export const reservedSlugs: ReadonlySet<string> = new Set([
  'api',
  'sandbox',
  'dev',
  'www',
  'localhost',
  'admin',
  'app',
  'dashboard',
  'docs',
  'status',
  'mail',
  'rpc',
  'chain',
  'faucet',
  'facilitator',
  'gateway',
  'control',
])

export type HostRoute =
  | { kind: 'control'; environment: Environment }
  | { kind: 'gateway'; environment: Environment; slug: string }
  | { kind: 'custom'; hostname: string }
  | { kind: 'unknown'; hostname: string }

/** Strips the port and lower-cases a Host header. */
export function hostnameOf(hostHeader: string | undefined): string {
  if (!hostHeader) return ''
  const host = hostHeader.trim().toLowerCase()
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1)
  const colon = host.lastIndexOf(':')
  return colon === -1 ? host : host.slice(0, colon)
}

/**
 * Where a request goes, from its Host header. Plain `localhost` and loopback addresses reach the production
 * control plane, so `curl localhost:PORT/…` works without a Host name.
 */
export function routeHost(hostHeader: string | undefined, hosts: Hosts): HostRoute {
  const hostname = hostnameOf(hostHeader)
  if (hostname === hosts.sandboxControlHost) return { kind: 'control', environment: 'development' }
  if (hostname === hosts.controlHost || hostname === 'localhost' || hostname === '127.0.0.1' || hostname === '[::1]')
    return { kind: 'control', environment: 'production' }
  const sandboxSuffix = `.${hosts.sandboxPlatformDomain}`
  if (hostname.endsWith(sandboxSuffix)) {
    const slug = hostname.slice(0, -sandboxSuffix.length)
    if (isSlug(slug)) return { kind: 'gateway', environment: 'development', slug }
    return { kind: 'unknown', hostname }
  }
  const suffix = `.${hosts.platformDomain}`
  if (hostname.endsWith(suffix)) {
    const slug = hostname.slice(0, -suffix.length)
    if (isSlug(slug)) return { kind: 'gateway', environment: 'production', slug }
    return { kind: 'unknown', hostname }
  }
  return hostname ? { kind: 'custom', hostname } : { kind: 'unknown', hostname }
}

/** A DNS label: 1-63 of a-z, 0-9 and inner hyphens. */
export function isSlug(value: string): boolean {
  return /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(value)
}

/** The origin clients reach `hostname` at: `http://{hostname}:{port}`, or `hosts.public`'s (a default port left out). */
export function publicOrigin(hosts: Hosts, hostname: string): string {
  const scheme = hosts.public?.scheme ?? 'http'
  const port = hosts.public?.port ?? hosts.port
  const standard = port === (scheme === 'https' ? 443 : 80)
  return `${scheme}://${hostname}${standard ? '' : `:${port}`}`
}

export function controlUrl(hosts: Hosts, environment: Environment): string {
  return publicOrigin(hosts, environment === 'development' ? hosts.sandboxControlHost : hosts.controlHost)
}

export function gatewayHost(hosts: Hosts, environment: Environment, slug: string): string {
  return `${slug}.${environment === 'development' ? hosts.sandboxPlatformDomain : hosts.platformDomain}`
}

/** Whether a host name is `localhost` or a name under it (RFC 6761: they all mean this machine). Lower case, no dot at the end. */
export const isLocalhostName = (name: string): boolean => name === 'localhost' || name.endsWith('.localhost')

/**
 * The path under which svc's listener serves every gateway host with no name to resolve: a request to
 * `http://127.0.0.1:{port}/gateway/{host}/{path}` is the request `/{path}` to `{host}` (glibc, Node and Python do not
 * resolve `*.localhost` names; an IP address needs no resolver). `gateway` is a reserved slug, and the control plane
 * has no path of that name.
 */
export const directGatewayPath = '/gateway'

/** Where the direct URLs start on `svc up`'s listener (it binds 127.0.0.1): `http://127.0.0.1:{port}/gateway`. */
export const directGatewayBase = (port: number): string => `http://127.0.0.1:${port}${directGatewayPath}`

/** A gateway host's direct URL: `http://127.0.0.1:{port}/gateway/{host}`. */
export const directGatewayUrl = (port: number, host: string): string => `${directGatewayBase(port)}/${host}`

/**
 * A direct URL's request target split: `/gateway/weather.dev.localhost/forecast?city=x` gives the host
 * (`weather.dev.localhost`, lower case), the prefix the buyer's URL has before the gateway's own path
 * (`/gateway/weather.dev.localhost`, as given) and that path (`/forecast?city=x`; `/` when there is none). Undefined
 * for a target not under `/gateway/`; an empty host part is ''.
 */
export function splitDirectTarget(target: string): { host: string; prefix: string; url: string } | undefined {
  const start = directGatewayPath.length + 1
  if (!target.startsWith(`${directGatewayPath}/`)) return undefined
  let end = start
  while (end < target.length && target[end] !== '/' && target[end] !== '?') end++
  const rest = target.slice(end)
  return {
    host: target.slice(start, end).toLowerCase(),
    prefix: target.slice(0, end),
    url: rest.startsWith('/') ? rest : `/${rest}`,
  }
}
