import { LRUCache } from 'lru-cache'
import type { ServerDeps } from '../deps.js'
import type { ApiRow } from '../db/tables.js'
import type { HostRoute } from '../../core/hosts.js'
import type { GatewayStore } from '../db/gateway-store.js'
import { resolveGatewayApi } from './resolve.js'

export type ApiCache = {
  /** The API a gateway host serves (see {@link resolveGatewayApi}), read again only when the database changed. */
  resolve(route: HostRoute, version: number): Promise<ApiRow | undefined>
}

/** At most this many hosts are remembered; past it the one asked for longest ago is forgotten. */
const maxHosts = 10_000

/** {@link resolveGatewayApi} cached per host under the {@link GatewayStore} version. */
export function createApiCache(deps: ServerDeps): ApiCache {
  const hosts = new LRUCache<string, { version: number; api: ApiRow | undefined }>({ max: maxHosts })
  return {
    async resolve(route, version) {
      const key =
        route.kind === 'gateway'
          ? `${route.environment} ${route.slug}`
          : route.kind === 'custom'
            ? `custom ${route.hostname}`
            : undefined
      if (key === undefined) return undefined
      const cached = hosts.get(key)
      if (cached && cached.version === version) return cached.api
      const api = await resolveGatewayApi(deps, route)
      hosts.set(key, { version, api })
      return api
    },
  }
}
