import type { ApiRow } from '../db/tables.js'
import type { HostRoute } from '../../core/hosts.js'
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
