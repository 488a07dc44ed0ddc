import { errorCode, SvcApiError } from '../core/errors.js'
import { localFetch } from './local-fetch.js'
import type * as T from './types.js'

export type SvcClientOptions = {
  /** {base_url} or {sandbox_base_url}, e.g. `http://sandbox.localhost:4020`. */
  baseUrl: string
  /** A session JWT (`Authorization: Bearer`). */
  jwt?: string | undefined
  /** An API key (`X-API-Key`); its prefix fixes the environment. */
  apiKey?: string | undefined
  /** `X-Svc-Environment` for JWT requests. */
  environment?: T.Environment | undefined
  /** @defaultValue a fetch that resolves `*.localhost` to 127.0.0.1 */
  fetch?: typeof globalThis.fetch | undefined
}

/** The control plane's errors: {@link SvcApiError} (an SvcError) and the cause-chain reader, part of the SDK's API. */
export { errorCode, SvcApiError }

type Query = Record<string, string | number | boolean | undefined>

/** A typed client of the svc control plane; the CLI, the dashboard and the MCP server use it. */
export function createSvcClient(options: SvcClientOptions) {
  const { baseUrl, jwt, apiKey, environment, fetch = localFetch } = options
  const base = baseUrl.replace(/\/+$/, '')

  async function request<R>(
    method: string,
    path: string,
    body?: unknown,
    query?: Query,
    accept = 'application/json',
  ): Promise<R> {
    const search = new URLSearchParams()
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) search.set(k, String(v))
    const url = `${base}${path}${search.size ? `?${search}` : ''}`
    let response: Response
    try {
      response = await fetch(url, {
        method,
        headers: {
          accept,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(jwt ? { authorization: `Bearer ${jwt}` } : {}),
          ...(apiKey ? { 'x-api-key': apiKey } : {}),
          ...(environment && !apiKey ? { 'x-svc-environment': environment } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
    } catch (error) {
      const code = errorCode(error)
      throw new SvcApiError(0, `cannot reach ${base}${code ? ` (${code})` : ''}: is svc up running?`, undefined)
    }
    const text = await response.text()
    const isJson = (response.headers.get('content-type') ?? '').includes('json')
    const parsed: unknown = isJson && text ? JSON.parse(text) : text
    if (!response.ok) {
      const message = (parsed as { error?: unknown })?.error
      throw new SvcApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`, parsed)
    }
    return parsed as R
  }

  const id = encodeURIComponent
  return {
    baseUrl: base,
    request,
    auth: {
      signup: (email: string, password: string) => request<T.Session>('POST', '/auth/signup', { email, password }),
      login: (email: string, password: string) => request<T.Session>('POST', '/auth/login', { email, password }),
      verifyEmail: (token: string) =>
        request<{ verified: true; user: T.User }>('POST', '/auth/verify-email', { token }),
      resendVerification: () => request<{ sent: true; to: string }>('POST', '/auth/resend-verification'),
      me: () => request<T.Me>('GET', '/auth/me'),
      outbox: (email?: string) => request<{ messages: T.OutboxMessage[] }>('GET', '/dev/outbox', undefined, { email }),
    },
    keys: {
      create: (input: { name: string; scopes?: string[]; preset?: string }) =>
        request<T.CreatedApiKey>('POST', '/auth/api-keys', input),
      list: () => request<{ api_keys: T.ApiKey[] }>('GET', '/auth/api-keys').then((r) => r.api_keys),
      revoke: (keyId: string) => request<T.ApiKey>('DELETE', `/auth/api-keys/${id(keyId)}`),
    },
    apis: {
      create: (input: T.ApiInput) => request<T.Api>('POST', '/apis', input),
      list: () => request<{ apis: T.Api[] }>('GET', '/apis').then((r) => r.apis),
      get: (apiId: string) => request<T.Api>('GET', `/apis/${id(apiId)}`),
      update: (apiId: string, input: T.ApiUpdate) => request<T.Api>('PUT', `/apis/${id(apiId)}`, input),
      delete: (apiId: string) => request<{ id: string; deleted: true }>('DELETE', `/apis/${id(apiId)}`),
    },
    endpoints: {
      create: (apiId: string, input: T.EndpointInput) =>
        request<T.Endpoint>('POST', `/apis/${id(apiId)}/endpoints`, input),
      list: (apiId: string) =>
        request<{ endpoints: T.Endpoint[] }>('GET', `/apis/${id(apiId)}/endpoints`).then((r) => r.endpoints),
      get: (apiId: string, endpointId: string) =>
        request<T.Endpoint>('GET', `/apis/${id(apiId)}/endpoints/${id(endpointId)}`),
      update: (apiId: string, endpointId: string, input: T.EndpointUpdate) =>
        request<T.Endpoint>('PUT', `/apis/${id(apiId)}/endpoints/${id(endpointId)}`, input),
      delete: (apiId: string, endpointId: string) =>
        request<{ id: string; deleted: true }>('DELETE', `/apis/${id(apiId)}/endpoints/${id(endpointId)}`),
    },
    openapi: {
      parse: (spec: string) => request<T.ParsedSpec>('POST', '/openapi/parse', { spec }),
      import: (apiId: string, operations: T.ImportOperation[], accepts: T.Accept[]) =>
        request<T.ImportResult>('POST', `/apis/${id(apiId)}/openapi/import`, { operations, accepts }),
    },
    config: {
      platform: () => request<T.PlatformConfig>('GET', '/config/platform'),
      localDev: () => request<T.LocalDevConfig>('GET', '/config/local-dev'),
    },
    discovery: (apiId: string) => request<T.DiscoverySummary>('GET', `/apis/${id(apiId)}/discovery`),
    domains: {
      add: (apiId: string, hostname: string) => request<T.Domain>('POST', `/apis/${id(apiId)}/domains`, { hostname }),
      list: (apiId: string) =>
        request<{ domains: T.Domain[] }>('GET', `/apis/${id(apiId)}/domains`).then((r) => r.domains),
      get: (apiId: string, domainId: string) => request<T.Domain>('GET', `/apis/${id(apiId)}/domains/${id(domainId)}`),
      verify: (apiId: string, domainId: string) =>
        request<T.DomainVerification>('POST', `/apis/${id(apiId)}/domains/${id(domainId)}/verify`),
      delete: (apiId: string, domainId: string) =>
        request<{ id: string; deleted: true }>('DELETE', `/apis/${id(apiId)}/domains/${id(domainId)}`),
    },
    stats: {
      overview: (query: T.StatsQuery = {}) => request<T.StatsOverview>('GET', '/stats/overview', undefined, query),
    },
    settlements: {
      list: (query: T.SettlementQuery = {}) => request<T.SettlementPage>('GET', '/settlements', undefined, query),
      /** Every matching settlement as CSV (RFC 4180, CRLF, a header row). */
      csv: (filter: T.SettlementFilter = {}) =>
        request<string>('GET', '/settlements', undefined, { ...filter, format: 'csv' }, 'text/csv'),
    },
    /** Fault injection (local Sandbox callers only, no credential needed): `svc fault …`. */
    faults: {
      list: () => request<T.FaultList>('GET', '/dev/faults'),
      add: (input: T.FaultInput) => request<T.Fault>('POST', '/dev/faults', input),
      /** Clears one fault, or every fault without an id; answers how many went. */
      clear: (faultId?: string) =>
        request<{ cleared: number }>(
          'DELETE',
          faultId === undefined ? '/dev/faults' : `/dev/faults/${id(faultId)}`,
        ).then((r) => r.cleared),
    },
    chain: {
      /** Restarts the Sandbox chain on the same URL, keeping its state (local Sandbox callers only). */
      restart: () => request<T.ChainRestart>('POST', '/dev/chain/restart'),
    },
    sandbox: {
      wallet: () => request<T.SandboxWallet>('GET', '/sandbox-wallet'),
      resetWallet: () => request<T.SandboxWallet>('POST', '/sandbox-wallet/reset'),
      balances: (address: string) => request<T.Balances>('POST', '/dev/balances', { address }),
      /** `options.approvePermit2`: also approve Permit2 for the address's USDC (Permit2 payments without a sponsored permit). */
      faucet: (
        address: string,
        asset: 'all' | 'eth' | 'usdc' = 'all',
        amount?: string,
        options: { approvePermit2?: boolean } = {},
      ) =>
        request<T.FaucetResult>('POST', '/dev/faucet', {
          address,
          asset,
          ...(amount === undefined ? {} : { amount }),
          ...(options.approvePermit2 ? { approve_permit2: true } : {}),
        }),
    },
    /** Whole-sandbox snapshots: local callers on {sandbox_base_url} only, no credential. */
    snapshots: {
      take: () => request<T.Snapshot>('POST', '/dev/snapshots'),
      list: () => request<{ snapshots: T.Snapshot[] }>('GET', '/dev/snapshots').then((r) => r.snapshots),
      /** Chain, control-plane state and svc's clock back as they were at the snapshot; it stays usable. */
      revert: (snapshotId: string) => request<T.SnapshotRevert>('POST', `/dev/snapshots/${id(snapshotId)}/revert`),
    },
    /** The chain's time and svc's clock: local callers on {sandbox_base_url} only, no credential. */
    time: {
      get: () => request<T.SandboxTime>('GET', '/dev/time'),
      /** Moves both forward by `seconds`. */
      advance: (seconds: number) => request<T.SandboxTime>('POST', '/dev/time/advance', { seconds }),
      /** svc's clock back to the machine's, as far as the chain allows (its time never goes back). */
      reset: () => request<T.SandboxTime>('POST', '/dev/time/reset'),
    },
  }
}

export type SvcClient = ReturnType<typeof createSvcClient>
