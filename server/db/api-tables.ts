/** What sellers publish: APIs, their endpoints and domains, their traffic, and the facilitator's bazaar listing. */
import type { Generated } from 'kysely'
import type { Environment } from '../../core/hosts.js'

export type ApisTable = {
  id: string
  user_id: string
  environment: Environment
  name: string
  slug: string
  upstream_base_url: string
  pay_to_mode: string
  pay_to_address: string | null
  discovery_guidance: string | null
  discovery_contact_email: string | null
  openapi_version: string
  created_at: string
  updated_at: string
}

/** One accept option of an endpoint as stored (snake_case, as the control plane speaks). */
export type Accept = {
  /** `exact`: `amount` is the price; `upto`: `amount` is the maximum, the upstream's Settlement-Overrides says what is charged. */
  scheme: 'exact' | 'upto' | 'batch-settlement' | 'auth-capture'
  network: string
  asset: string
  amount: string
  max_timeout_seconds: number
  extra?: Record<string, unknown>
}

export type EndpointsTable = {
  id: string
  api_id: string
  method: string
  path_pattern: string
  /** JSON array of accept options, snake_case as the API speaks. */
  accepts: string
  request_schema: string | null
  response_schema: string | null
  schema_source: 'inferred' | 'openapi' | 'manual'
  enabled: number
  description: string | null
  /** 1: a payment without a payment-identifier id is refused (x402's payment-identifier `required`). */
  payment_identifier_required: Generated<number>
  ttl_seconds: number | null
  expires_at: string | null
  created_at: string
  updated_at: string
  /** Sign-in-with-x: how long a payment lets its payer sign in instead of paying again, in seconds; null: off. */
  siwx_access_seconds: number | null
}

export type DomainsTable = {
  id: string
  api_id: string
  /** Lower-case hostname, unique across all APIs. */
  hostname: string
  verification_token: string
  status: 'pending' | 'verified'
  verified_at: string | null
  created_at: string
}

/** Gateway traffic per API and UTC day: every request, the 402s answered, the paid requests served. */
export type ApiDailyStatsTable = {
  api_id: string
  user_id: string
  environment: Environment
  /** YYYY-MM-DD (UTC). */
  day: string
  requests: number
  payment_required: number
  paid_requests: number
}

/** The facilitator's bazaar catalog: one row per resource and method (or MCP tool), its latest listing. */
export type BazaarResourcesTable = {
  /** `{type} {method or tool} {resource URL}` */
  key: string
  type: string
  /** Lowercase, for the `payTo` filter. */
  pay_to: string
  scheme: string
  network: string
  /** The listed item as JSON (`GET /discovery/resources`' shape). */
  item: string
  /** Milliseconds since the epoch: `lastUpdated`, and the order of eviction. */
  updated_at: number
}
