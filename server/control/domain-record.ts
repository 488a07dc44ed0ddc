import { gatewayHost } from '../../core/hosts.js'
import type { ApiRow, DomainRow } from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import { challengePrefix, challengeValue } from './domain-verification.js'

/** A domain as the control plane answers it. */
export function domainRecord(deps: ServerDeps, api: ApiRow, row: DomainRow) {
  return {
    id: row.id,
    api_id: row.api_id,
    hostname: row.hostname,
    status: row.status,
    verification_record: {
      type: 'TXT' as const,
      name: `${challengePrefix}${row.hostname}`,
      value: challengeValue(row.verification_token),
    },
    cname_target: gatewayHost(deps.hosts, api.environment, api.slug),
    verification_token: row.verification_token,
    verified_at: row.verified_at,
    created_at: row.created_at,
  }
}
