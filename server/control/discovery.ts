import { Router } from 'express'
import { type ApiRow, countEndpoints, findOwnedApi, listVerifiedHostnames } from '../db/index.js'
import { gatewayHost, publicOrigin } from '../../core/hosts.js'
import { param } from '../../core/http.js'
import { clockOf } from '../sandbox/index.js'
import { guard, principalOf } from './context.js'
import type { ServerDeps } from '../deps.js'

/**
 * The hosts an API is served on: the platform host (`{slug}.dev.localhost` / `{slug}.localhost`) first, then its
 * verified custom domains in the order they were verified. The primary host is the first verified custom domain
 * (a seller who verified a domain wants it advertised), else the platform host. Every URL is
 * `http://{host}:{port}` (the one svc listener serves custom hostnames on the same port), or the public scheme and port
 * svc serve was given.
 */
export async function discoverySummary(deps: ServerDeps, api: ApiRow) {
  const [custom, counts] = await Promise.all([
    listVerifiedHostnames(deps.db, api.id),
    countEndpoints(deps.db, api.id, clockOf(deps).nowIso()),
  ])
  const platform = gatewayHost(deps.hosts, api.environment, api.slug)
  const hosts = [platform, ...custom]
  const primary = custom[0] ?? platform
  const urls = (host: string) => {
    const origin = publicOrigin(deps.hosts, host)
    return { openapi_url: `${origin}/openapi.json`, well_known_url: `${origin}/.well-known/x402.json` }
  }
  return {
    primary_host: primary,
    hosts,
    ...urls(primary),
    endpoint_count: counts.total,
    discoverable_endpoint_count: counts.discoverable,
    host_urls: hosts.map((host) => ({ host, ...urls(host), is_primary: host === primary })),
  }
}

/** GET /apis/{id}/discovery: where the API's discovery documents are published, and how many endpoints they list. */
export function createDiscoveryRoutes(deps: ServerDeps): Router {
  const router = Router()
  router.get('/apis/:apiId/discovery', guard({ scopes: ['apis:read'] }), async (req, res) => {
    const api = await findOwnedApi(deps.db, principalOf(req), param(req.params.apiId))
    res.json(await discoverySummary(deps, api))
  })
  return router
}
