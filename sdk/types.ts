/** Shapes of the control plane's answers (server/openapi.yaml is the authority). */
import type { Environment } from '../core/hosts.js'

export type { Environment }

export type User = { id: string; email: string; email_verified: boolean; created_at: string }
export type Session = { token: string; user: User }
export type Me = { user: User; environment: Environment; via: 'jwt' | 'api_key'; scopes: string[] | null }
export type OutboxMessage = { id: number; to: string; subject: string; body: string; token: string | null; created_at: string }

export type ApiKey = {
  id: string
  name: string
  environment: Environment
  prefix: string
  scopes: string[]
  created_at: string
  last_used_at: string | null
  revoked_at: string | null
}
export type CreatedApiKey = ApiKey & { key: string }

export type Api = {
  id: string
  name: string
  slug: string
  environment: Environment
  upstream_base_url: string
  pay_to_mode: string
  pay_to_address: string | null
  discovery_guidance: string | null
  discovery_contact_email: string | null
  openapi_version: string
  gateway_url: string
  created_at: string
  updated_at: string
}
export type ApiInput = {
  name: string
  slug: string
  upstream_base_url: string
  pay_to_mode: 'user_wallet'
  pay_to_address?: string
  discovery_guidance?: string | null
  discovery_contact_email?: string | null
  openapi_version?: string
}

export type Accept = {
  scheme: 'exact'
  network: string
  asset: string
  amount: string
  max_timeout_seconds?: number
  extra?: Record<string, unknown>
}
export type Endpoint = {
  id: string
  api_id: string
  method: string
  path_pattern: string
  accepts: Required<Accept>[]
  request_schema: Record<string, unknown> | null
  response_schema: Record<string, unknown> | null
  schema_source: 'inferred' | 'openapi' | 'manual'
  enabled: boolean
  description: string | null
  ttl: number | null
  expires_at: string | null
  created_at: string
  updated_at: string
}
export type EndpointInput = {
  method: string
  path_pattern: string
  accepts: Accept[]
  request_schema?: Record<string, unknown> | null
  response_schema?: Record<string, unknown> | null
  description?: string | null
  enabled?: boolean
  ttl?: number
}
export type EndpointUpdate = Partial<Omit<EndpointInput, 'ttl'>> & { clear_schemas?: boolean }

export type ParsedOperation = {
  method: string
  path_pattern: string
  summary: string | null
  description: string | null
  operation_id: string | null
  request_schema: Record<string, unknown> | null
  response_schema: Record<string, unknown> | null
}
export type ParsedSpec = { openapi_version: string; title: string | null; operations: ParsedOperation[] }
export type ImportResult = { created: Endpoint[]; skipped: { method: string; path_pattern: string; reason: string }[] }

export type PaymentToken = { address: string; symbol: string; decimals: number; network: string; extra: Record<string, unknown> }
export type PlatformConfig = {
  platform_domain: string
  sandbox_platform_domain: string
  gateway_port: number
  base_url: string
  sandbox_base_url: string
  environments: Environment[]
  schemes: string[]
  payment_tokens: (PaymentToken & { environment: Environment })[]
  api_key_prefixes: Record<Environment, string>
}
export type LocalDevConfig = {
  enabled: boolean
  chain_id: number
  network: string
  rpc_url: string | null
  chain_manager_url: string | null
  facilitator_url: string | null
  faucet_enabled: boolean
  usdc: PaymentToken
}

export type SandboxWallet = { address: string; private_key: string; private_key_redacted: string; funding: 'started' | 'existing'; created_at: string }
export type Balances = { address: string; eth_wei: string; usdc_base: string }
export type FaucetResult = {
  address: string
  asset: 'all' | 'eth' | 'usdc'
  funded: { eth_wei?: string; usdc_base?: string }
  transactions: { usdc?: string }
  balances: { eth_wei: string; usdc_base: string }
}

export type DiscoverySummary = {
  primary_host: string
  hosts: string[]
  openapi_url: string
  well_known_url: string
  endpoint_count: number
  discoverable_endpoint_count: number
  host_urls: { host: string; openapi_url: string; well_known_url: string; is_primary: boolean }[]
}

export type Domain = {
  id: string
  api_id: string
  hostname: string
  status: 'pending' | 'verified'
  verification_record: { type: 'TXT'; name: string; value: string }
  cname_target: string
  verification_token: string
  verified_at: string | null
  created_at: string
}
export type DomainVerification = { status: 'verified' | 'already verified' | 'pending'; domain: Domain; reason?: string }

export type StatsRevenue = { network: string; asset: string; amount: string; decimals?: number }
export type StatsCounters = { requests: number; payment_required: number; paid_requests: number; settlements: number }
export type StatsOverview = {
  days: number
  from: string
  to: string
  api_id: string | null
  totals: StatsCounters & { unique_payers: number }
  revenue: StatsRevenue[]
  daily: (StatsCounters & { day: string; revenue: { network: string; asset: string; amount: string }[] })[]
}
export type StatsQuery = { days?: number | undefined; api_id?: string | undefined }

export type Settlement = {
  id: string
  api_id: string
  endpoint_id: string | null
  environment: Environment
  network: string
  asset: string
  amount: string
  payer: string
  pay_to: string
  transaction: string
  method: string
  path: string
  created_at: string
}
export type SettlementPage = { settlements: Settlement[]; next_cursor: string | null }
/** Filters of GET /settlements; `from`/`to` are ISO timestamps with a zone or YYYY-MM-DD days. */
export type SettlementFilter = {
  api_id?: string | undefined
  endpoint_id?: string | undefined
  from?: string | undefined
  to?: string | undefined
}
export type SettlementQuery = SettlementFilter & { limit?: number | undefined; cursor?: string | undefined }
