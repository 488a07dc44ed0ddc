import createClient from 'openapi-fetch'
import { errorCode, SvcApiError, SvcError } from '../core/errors.js'
import type { paths } from '../core/openapi.generated.js'
import { streamEvents } from './event-stream.js'
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

/** What an untyped `request` sends besides its method and path. */
export type SvcRequestOptions = {
  /** A JSON body. */
  body?: unknown
  /** The query string's parameters (undefined ones are left out). */
  query?: Query | undefined
  /** The `Accept` header; a type without `json` reads the answer as text. @defaultValue `application/json` */
  accept?: string | undefined
}
type KeyInput = paths['/auth/api-keys']['post']['requestBody']['content']['application/json']
/** What openapi-fetch answers: the typed body of a success, or the parsed body of an error. */
type Answered<Data> = Promise<{ data?: Data; error?: unknown; response: Response }>

/**
 * A typed client of the svc control plane; the CLI, the dashboard and the MCP server use it. The routes, their
 * parameters, bodies and answers are typed by openapi-fetch from core/openapi.generated.ts (server/openapi.yaml);
 * each method names the SDK type it answers (sdk/types.ts), which the compiler checks against the contract.
 */
export function createSvcClient(options: SvcClientOptions) {
  const { baseUrl, jwt, apiKey, environment, fetch = localFetch } = options
  const base = baseUrl.replace(/\/+$/, '')
  const credential = {
    ...(jwt ? { authorization: `Bearer ${jwt}` } : {}),
    ...(apiKey ? { 'x-api-key': apiKey } : {}),
    ...(environment && !apiKey ? { 'x-svc-environment': environment } : {}),
  }
  const api = createClient<paths, 'application/json'>({
    baseUrl: base,
    headers: { accept: 'application/json', ...credential },
    // openapi-fetch hands over a Request; the caller's fetch is called as it always was, with a URL and a text body.
    fetch: async (request) => {
      const body = request.body ? await request.text() : undefined
      try {
        return await fetch(request.url, { method: request.method, headers: Object.fromEntries(request.headers), body })
      } catch (error) {
        // A fetch of the caller's that refuses to send (the CLI's, to another svc than its login's) says why itself.
        if (error instanceof SvcError) throw error
        const code = errorCode(error)
        throw new SvcApiError(0, `cannot reach ${base}${code ? ` (${code})` : ''}: is svc up running?`, undefined)
      }
    },
  })

  /** The body of a success; the control plane's `{"error"}` as an {@link SvcApiError} otherwise. */
  async function answer<Data>(call: Answered<Data>): Promise<Data> {
    const { data, error, response } = await call
    if (!response.ok) {
      const message = (error as { error?: unknown } | undefined)?.error
      throw new SvcApiError(response.status, typeof message === 'string' ? message : `HTTP ${response.status}`, error)
    }
    return data as Data
  }

  /** Any route by method and path, untyped: for a route this client has no method for. */
  function request<R>(method: string, path: string, options: SvcRequestOptions = {}): Promise<R> {
    const { body, query, accept = 'application/json' } = options
    const init = { body, params: { query }, headers: { accept }, parseAs: accept.includes('json') ? 'json' : 'text' }
    return answer(api.request(method.toLowerCase() as 'get', path as '/auth/me', init as never) as Answered<R>)
  }

  const path = <Params>(params: Params) => ({ params: { path: params } })
  type Deleted = { id: string; deleted: true }
  return {
    baseUrl: base,
    request,
    auth: {
      signup: (email: string, password: string): Promise<T.Session> =>
        answer(api.POST('/auth/signup', { body: { email, password } })),
      login: (email: string, password: string): Promise<T.Session> =>
        answer(api.POST('/auth/login', { body: { email, password } })),
      verifyEmail: (token: string): Promise<{ verified: true; user: T.User }> =>
        answer(api.POST('/auth/verify-email', { body: { token } })),
      resendVerification: (): Promise<{ sent: true; to: string }> => answer(api.POST('/auth/resend-verification')),
      me: (): Promise<T.Me> => answer(api.GET('/auth/me')),
      outbox: (email?: string): Promise<{ messages: T.OutboxMessage[] }> =>
        answer(api.GET('/dev/outbox', { params: { query: { email } } })),
    },
    keys: {
      create: (input: { name: string; scopes?: string[]; preset?: string }): Promise<T.CreatedApiKey> =>
        // `preset` stays a string here, as the CLI passes what it was given: the server names a wrong one (400).
        answer(api.POST('/auth/api-keys', { body: input as KeyInput })),
      list: (): Promise<T.ApiKey[]> => answer(api.GET('/auth/api-keys')).then((r) => r.api_keys),
      revoke: (keyId: string): Promise<T.ApiKey> => answer(api.DELETE('/auth/api-keys/{keyId}', path({ keyId }))),
    },
    apis: {
      create: (input: T.ApiInput): Promise<T.Api> => answer(api.POST('/apis', { body: input })),
      list: (): Promise<T.Api[]> => answer(api.GET('/apis')).then((r) => r.apis),
      get: (apiId: string): Promise<T.Api> => answer(api.GET('/apis/{apiId}', path({ apiId }))),
      update: (apiId: string, input: T.ApiUpdate): Promise<T.Api> =>
        answer(api.PUT('/apis/{apiId}', { ...path({ apiId }), body: input })),
      delete: (apiId: string): Promise<Deleted> => answer(api.DELETE('/apis/{apiId}', path({ apiId }))),
    },
    endpoints: {
      create: (apiId: string, input: T.EndpointInput): Promise<T.Endpoint> =>
        answer(api.POST('/apis/{apiId}/endpoints', { ...path({ apiId }), body: input })),
      list: (apiId: string): Promise<T.Endpoint[]> =>
        answer(api.GET('/apis/{apiId}/endpoints', path({ apiId }))).then((r) => r.endpoints),
      get: (apiId: string, endpointId: string): Promise<T.Endpoint> =>
        answer(api.GET('/apis/{apiId}/endpoints/{endpointId}', path({ apiId, endpointId }))),
      update: (apiId: string, endpointId: string, input: T.EndpointUpdate): Promise<T.Endpoint> =>
        answer(api.PUT('/apis/{apiId}/endpoints/{endpointId}', { ...path({ apiId, endpointId }), body: input })),
      delete: (apiId: string, endpointId: string): Promise<Deleted> =>
        answer(api.DELETE('/apis/{apiId}/endpoints/{endpointId}', path({ apiId, endpointId }))),
    },
    openapi: {
      parse: (spec: string): Promise<T.ParsedSpec> => answer(api.POST('/openapi/parse', { body: { spec } })),
      import: (apiId: string, operations: T.ImportOperation[], accepts: T.Accept[]): Promise<T.ImportResult> =>
        answer(api.POST('/apis/{apiId}/openapi/import', { ...path({ apiId }), body: { operations, accepts } })),
    },
    config: {
      platform: (): Promise<T.PlatformConfig> => answer(api.GET('/config/platform')),
      localDev: (): Promise<T.LocalDevConfig> => answer(api.GET('/config/local-dev')),
    },
    discovery: (apiId: string): Promise<T.DiscoverySummary> =>
      answer(api.GET('/apis/{apiId}/discovery', path({ apiId }))),
    domains: {
      add: (apiId: string, hostname: string): Promise<T.Domain> =>
        answer(api.POST('/apis/{apiId}/domains', { ...path({ apiId }), body: { hostname } })),
      list: (apiId: string): Promise<T.Domain[]> =>
        answer(api.GET('/apis/{apiId}/domains', path({ apiId }))).then((r) => r.domains),
      get: (apiId: string, domainId: string): Promise<T.Domain> =>
        answer(api.GET('/apis/{apiId}/domains/{domainId}', path({ apiId, domainId }))),
      verify: (apiId: string, domainId: string): Promise<T.DomainVerification> =>
        answer(api.POST('/apis/{apiId}/domains/{domainId}/verify', path({ apiId, domainId }))),
      delete: (apiId: string, domainId: string): Promise<Deleted> =>
        answer(api.DELETE('/apis/{apiId}/domains/{domainId}', path({ apiId, domainId }))),
    },
    stats: {
      overview: (query: T.StatsQuery = {}): Promise<T.StatsOverview> =>
        answer(api.GET('/stats/overview', { params: { query } })),
    },
    settlements: {
      list: (query: T.SettlementQuery = {}): Promise<T.SettlementPage> =>
        answer(api.GET('/settlements', { params: { query } })),
      /** Every matching settlement as CSV (RFC 4180, CRLF, a header row). */
      csv: (filter: T.SettlementFilter = {}): Promise<string> =>
        answer(
          api.GET('/settlements', {
            params: { query: { ...filter, format: 'csv' } },
            headers: { accept: 'text/csv' },
            parseAs: 'text',
          }),
        ),
    },
    channels: {
      /** The payment channels (x402 batch-settlement) buyers opened on the caller's APIs, newest first. */
      list: (query: T.ChannelQuery = {}): Promise<T.Channel[]> =>
        answer(api.GET('/channels', { params: { query } })).then((page) => page.channels),
      /** Every matching channel as CSV (a header row of the record's fields). */
      csv: (query: T.ChannelQuery = {}): Promise<string> =>
        answer(
          api.GET('/channels', {
            params: { query: { ...query, format: 'csv' } },
            headers: { accept: 'text/csv' },
            parseAs: 'text',
          }),
        ),
      /** One channel, the requests it paid (newest first) and its transactions. */
      get: (channelId: string): Promise<T.ChannelDetail> =>
        answer(api.GET('/channels/{channelId}', path({ channelId }))),
    },
    payments: {
      /** The escrow payments (x402 auth-capture) buyers made to the caller's APIs, newest first. */
      list: (query: T.EscrowPaymentQuery = {}): Promise<T.EscrowPayment[]> =>
        answer(api.GET('/payments', { params: { query } })).then((page) => page.payments),
      /** Every matching escrow payment as CSV (a header row of the record's fields). */
      csv: (query: T.EscrowPaymentQuery = {}): Promise<string> =>
        answer(
          api.GET('/payments', {
            params: { query: { ...query, format: 'csv' } },
            headers: { accept: 'text/csv' },
            parseAs: 'text',
          }),
        ),
      /** One escrow payment and every transaction that moved it, oldest first. */
      get: (paymentId: string): Promise<T.EscrowPaymentDetail> =>
        answer(api.GET('/payments/{paymentId}', path({ paymentId }))),
      /** Captures the hold, all of it (default) or `amount` atomic units; the rest stays held. Scope payments:write. */
      capture: (paymentId: string, input: { amount?: string } = {}): Promise<T.EscrowPaymentMoved> =>
        answer(api.POST('/payments/{paymentId}/capture', { ...path({ paymentId }), body: input })),
      /** Voids what the payment still holds, back to the buyer. Scope payments:write. */
      void: (paymentId: string): Promise<T.EscrowPaymentMoved> =>
        answer(api.POST('/payments/{paymentId}/void', { ...path({ paymentId }), body: {} })),
      /** Refunds `amount` atomic units of what was captured, to the buyer. Scope payments:write. */
      refund: (paymentId: string, input: { amount: string }): Promise<T.EscrowPaymentMoved> =>
        answer(api.POST('/payments/{paymentId}/refund', { ...path({ paymentId }), body: input })),
    },
    events: {
      /**
       * The live payment events (`GET /events`, Server-Sent Events) as an async iterator: `for await (const event of
       * client.events.stream({ signal }))`. It reconnects by itself with `Last-Event-ID` (missed events are replayed,
       * none comes twice); `lastEventId` resumes after an event seen earlier. API keys need settlements:read.
       */
      stream: (options: T.EventStreamOptions = {}): AsyncGenerator<T.PaymentEvent, void, undefined> =>
        paymentsOnly(streamEvents({ ...options, baseUrl: base, headers: credential, fetch })),
      /**
       * {@link stream} with the whole-Sandbox events too (`sandbox.reverted`, `sandbox.time_advanced`,
       * `sandbox.time_reset`, `sandbox.chain_restarted`, each with its `actor`): what a tenant of a shared Sandbox
       * watches to learn that someone else changed everyone's Sandbox.
       */
      streamAll: (options: T.EventStreamOptions = {}): AsyncGenerator<T.StreamEvent, void, undefined> =>
        streamEvents({ ...options, baseUrl: base, headers: credential, fetch }),
    },
    /** Fault injection (local Sandbox callers only, no credential needed): `svc fault …`. */
    faults: {
      list: (): Promise<T.FaultList> => answer(api.GET('/dev/faults')),
      add: (input: T.FaultInput): Promise<T.Fault> => answer(api.POST('/dev/faults', { body: input })),
      /** Clears one fault, or every fault without an id; answers how many went. */
      clear: (faultId?: string): Promise<number> =>
        answer(
          faultId === undefined ? api.DELETE('/dev/faults') : api.DELETE('/dev/faults/{faultId}', path({ faultId })),
        ).then((r) => r.cleared),
    },
    chain: {
      /** Restarts the Sandbox chain on the same URL, keeping its state (local Sandbox callers only). */
      restart: (): Promise<T.ChainRestart> => answer(api.POST('/dev/chain/restart')),
    },
    sandbox: {
      wallet: (): Promise<T.SandboxWallet> => answer(api.GET('/sandbox-wallet')),
      resetWallet: (): Promise<T.SandboxWallet> => answer(api.POST('/sandbox-wallet/reset')),
      balances: (address: string): Promise<T.Balances> => answer(api.POST('/dev/balances', { body: { address } })),
      /** `options.approvePermit2`: also approve Permit2 for the address's USDC (Permit2 payments without a sponsored permit). */
      faucet: (
        address: string,
        asset: 'all' | 'eth' | 'usdc' = 'all',
        amount?: string,
        /** `network`: a twin's (`eip155:84532` or `base-sepolia`) to fund there; default the Sandbox chain. */
        options: { approvePermit2?: boolean; network?: string } = {},
      ): Promise<T.FaucetResult> =>
        answer(
          api.POST('/dev/faucet', {
            body: {
              address,
              asset,
              ...(amount === undefined ? {} : { amount }),
              ...(options.approvePermit2 ? { approve_permit2: true } : {}),
              ...(options.network === undefined ? {} : { network: options.network }),
            },
          }),
        ),
    },
    /** Whole-sandbox snapshots: local callers on {sandbox_base_url} only, no credential. */
    snapshots: {
      take: (): Promise<T.Snapshot> => answer(api.POST('/dev/snapshots')),
      list: (): Promise<T.Snapshot[]> => answer(api.GET('/dev/snapshots')).then((r) => r.snapshots),
      /** Chain, control-plane state and svc's clock back as they were at the snapshot; it stays usable. */
      revert: (snapshotId: string): Promise<T.SnapshotRevert> =>
        answer(api.POST('/dev/snapshots/{snapshotId}/revert', path({ snapshotId }))),
    },
    /** The chain's time and svc's clock: local callers on {sandbox_base_url} only, no credential. */
    time: {
      get: (): Promise<T.SandboxTime> => answer(api.GET('/dev/time')),
      /** Moves both forward by `seconds`. */
      advance: (seconds: number): Promise<T.SandboxTime> =>
        answer(api.POST('/dev/time/advance', { body: { seconds } })),
      /** svc's clock back to the machine's, as far as the chain allows (its time never goes back). */
      reset: (): Promise<T.SandboxTime> => answer(api.POST('/dev/time/reset')),
    },
  }
}

export type SvcClient = ReturnType<typeof createSvcClient>

/** The payment events of a stream, without the whole-Sandbox ones. */
async function* paymentsOnly(events: AsyncGenerator<T.StreamEvent, void, undefined>) {
  try {
    for await (const event of events) if (!isSandboxEvent(event)) yield event
  } finally {
    await events.return()
  }
}

/** Whether a streamed event is a whole-Sandbox one (a revert, time travel, a chain restart). */
export function isSandboxEvent(event: T.StreamEvent): event is T.SandboxEvent {
  return event.type.startsWith('sandbox.')
}
