import { getAddress } from 'viem'
import { directGatewayUrl, gatewayHost, publicOrigin } from '../../core/hosts.js'
import type { ApiRow } from '../db/index.js'
import type { ServerDeps } from '../deps.js'

export type ApiRecord = ReturnType<typeof apiRecord>

/** The API as the control plane answers it. */
export function apiRecord(deps: ServerDeps, row: ApiRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    environment: row.environment,
    upstream_base_url: row.upstream_base_url,
    pay_to_mode: row.pay_to_mode,
    pay_to_address: row.pay_to_address === null ? null : getAddress(row.pay_to_address),
    discovery_guidance: row.discovery_guidance,
    discovery_contact_email: row.discovery_contact_email,
    openapi_version: row.openapi_version,
    gateway_url: publicOrigin(deps.hosts, gatewayHost(deps.hosts, row.environment, row.slug)),
    // The same gateway with no name to resolve (server/app.ts: directGatewayRoute); a server (svc serve) has none.
    direct_url: deps.trust
      ? null
      : directGatewayUrl(deps.hosts.port, gatewayHost(deps.hosts, row.environment, row.slug)),
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
