import type { ChainServices } from '../../chain/services.js'
import { type RunningServer, startSvc } from '../../server/start/index.js'
import type { PaidRouteLimits } from '../../server/deps.js'
import type { AuthThrottleLimits } from '../../server/serve/throttle.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { assertMatchesContract } from './contract.js'
import { suiteDatabaseUrl } from './postgres.js'

export type CallOptions = {
  /** Which control-plane host: production = {base_url}, development = {sandbox_base_url}. @defaultValue 'production' */
  host?: 'production' | 'development'
  method?: string
  body?: unknown
  jwt?: string
  key?: string
  /** X-Svc-Environment */
  environment?: string
  headers?: Record<string, string>
  /** Skip the contract check (for responses that are deliberately outside it). */
  unchecked?: boolean
}

export type CallResult = { status: number; body: any; headers: Headers }

export type TestServer = {
  server: RunningServer
  call(path: string, options?: CallOptions): Promise<CallResult>
  /** Signs up a fresh account; verified unless `verified: false`. */
  signup(options?: { verified?: boolean; email?: string }): Promise<{ jwt: string; email: string; userId: string }>
  /** Creates an API key with a JWT and returns its secret. */
  createKey(jwt: string, environment: 'production' | 'development', scopes: string[]): Promise<string>
  /** `http://{slug}.dev.localhost:PORT` (development) or `http://{slug}.localhost:PORT` (production): fetch it with localFetch. */
  gatewayUrl(slug: string, environment?: 'production' | 'development'): string
  stop(): Promise<void>
}

let counter = 0

/**
 * A real server on port 0 with a real SQLite file in a temporary directory (with SVC_TEST_DATABASE=postgres: a fresh
 * PostgreSQL database); every response is checked against the contract.
 */
export async function startTestServer(
  options: {
    chain?: ChainServices
    autoVerify?: boolean
    dnsServers?: string[]
    productionFacilitatorUrl?: string
    authThrottle?: Partial<AuthThrottleLimits>
    /** Lower limits of the paid routes (the upstream deadline, the largest answer held). */
    paidRoutes?: PaidRouteLimits
    /** How long the schema probe waits for an upstream. @defaultValue 2000 */
    schemaProbeTimeoutMs?: number
    /** A database of the test's own (several servers on one PostgreSQL database). @defaultValue the suite's */
    databaseUrl?: string
    /** A team Sandbox's process (svc serve --sandbox-chain shared) and how often it reaps (server/start/server.ts). */
    sharedChain?: { everyMs?: number }
    reapEveryMs?: number
    /** RPCs of production networks, `<network>=<url>` (svc serve --rpc), and the widest log range read on them. */
    rpc?: string[]
    rpcLogBlocks?: number
  } = {},
): Promise<TestServer> {
  const databaseUrl = options.databaseUrl ?? (await suiteDatabaseUrl())
  const server = (await startSvc({ mode: 'server', ...options, databaseUrl, log: () => {} })).server

  async function call(path: string, opts: CallOptions = {}): Promise<CallResult> {
    const {
      host = 'production',
      method = opts.body === undefined ? 'GET' : 'POST',
      body,
      jwt,
      key,
      environment,
      headers = {},
      unchecked,
    } = opts
    const base = host === 'development' ? server.sandboxControlUrl : server.controlUrl
    const response = await localFetch(`${base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(jwt ? { authorization: `Bearer ${jwt}` } : {}),
        ...(key ? { 'x-api-key': key } : {}),
        ...(environment ? { 'x-svc-environment': environment } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    const contentType = response.headers.get('content-type') ?? ''
    const text = await response.text()
    const parsed = contentType.includes('json') ? (text ? JSON.parse(text) : null) : text
    if (!contentType.includes('json') && response.status >= 400)
      throw new Error(`${method} ${path}: a ${response.status} that is not JSON: ${text.slice(0, 200)}`)
    if (!unchecked) assertMatchesContract(method, path, response.status, parsed, contentType || 'application/json')
    return { status: response.status, body: parsed, headers: response.headers }
  }

  async function signup({ verified = true, email = `seller${++counter}-${Date.now()}@example.test` } = {}) {
    const { body } = await call('/auth/signup', { body: { email, password: 'correct horse battery' } })
    if (verified && !body.user.email_verified) {
      const outbox = await call(`/dev/outbox?email=${encodeURIComponent(email)}`)
      const token = outbox.body.messages[0].token
      await call('/auth/verify-email', { body: { token } })
    }
    return { jwt: body.token as string, email, userId: body.user.id as string }
  }

  async function createKey(jwt: string, environment: 'production' | 'development', scopes: string[]) {
    const { status, body } = await call('/auth/api-keys', {
      jwt,
      environment,
      body: { name: `key ${++counter}`, scopes },
    })
    if (status !== 201) throw new Error(`creating a key failed: ${status} ${JSON.stringify(body)}`)
    return body.key as string
  }

  const gatewayUrl = (slug: string, environment: 'production' | 'development' = 'development') =>
    `http://${slug}.${environment === 'development' ? server.hosts.sandboxPlatformDomain : server.hosts.platformDomain}:${server.port}`

  return { server, call, signup, createKey, gatewayUrl, stop: () => server.stop() }
}
