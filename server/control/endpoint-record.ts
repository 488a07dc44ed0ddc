import type { Accept, EndpointRow } from '../db/index.js'
import type { JsonSchema } from '../upstream/index.js'

export type EndpointRecord = ReturnType<typeof endpointRecord>

/** The endpoint as the control plane answers it. */
export function endpointRecord(row: EndpointRow) {
  return {
    id: row.id,
    api_id: row.api_id,
    method: row.method,
    path_pattern: row.path_pattern,
    accepts: JSON.parse(row.accepts) as Accept[],
    request_schema: row.request_schema === null ? null : (JSON.parse(row.request_schema) as JsonSchema),
    response_schema: row.response_schema === null ? null : (JSON.parse(row.response_schema) as JsonSchema),
    schema_source: row.schema_source,
    enabled: row.enabled === 1,
    description: row.description,
    payment_identifier_required: row.payment_identifier_required === 1,
    ttl: row.ttl_seconds,
    expires_at: row.expires_at,
    siwx: row.siwx_access_seconds === null ? null : { access_seconds: row.siwx_access_seconds },
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}
