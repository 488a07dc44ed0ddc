/**
 * `connectSandbox(url, credentials)`: the CI helper for a shared Sandbox (a team's `svc serve`), the counterpart of
 * {@link startSandbox} (svc/testing) that starts nothing. Each job works as its own tenant: a seller (fresh, or the
 * given one), a Sandbox API key, a buyer funded by the faucet, its own APIs' faults and events. What changes the whole
 * Sandbox for everyone (snapshots, time travel, the chain's restart) takes the admin credential.
 */
import { randomBytes } from 'node:crypto'
import type { Hex } from 'viem'
import { ForbiddenError, SvcApiError, UsageError } from '../core/errors.js'
import { scopes } from '../core/scopes.js'
import type { SvcClient } from './client.js'
import { createEventQueue } from './event-queue.js'
import { signingBySvcClock } from './svc-clock-signing.js'
import type { ChainRestart, Fault, FaultInput, SandboxTime, StreamEvent } from './types.js'

/**
 * The modules a connection is made of (the official x402 client on your viem, svc's client): loaded by the first
 * connectSandbox() call, not when svc/testing is imported (a test file that only starts a sandbox does not load them
 * before it starts).
 */
const loadClientModules = () =>
  Promise.all([
    import('@x402/core/client'),
    import('@x402/evm/exact/client'),
    import('@x402/evm/upto/client'),
    import('@x402/fetch'),
    import('viem/accounts'),
    import('./client.js'),
    import('./local-fetch.js'),
    import('./takeover-retry.js'),
  ])

/**
 * Who the job is on the shared Sandbox. No email: a fresh seller (the server must verify emails: `--auto-verify`).
 */
export type SandboxCredentials = {
  /** An existing, verified seller: logged in (the faucet takes its session), and a Sandbox key made for this run. */
  email?: string | undefined
  password?: string | undefined
  /** That seller's Sandbox (`svc_sandbox_…`) key, used instead of making one. */
  apiKey?: string | undefined
  /** `svc serve`'s admin token: snapshots, time travel and the chain's restart. */
  adminToken?: string | undefined
}

export type ConnectSandboxOptions = {
  /** USDC the buyer gets from the faucet, in whole units. @defaultValue '100' */
  buyerUsdc?: string | undefined
  /** Most the buyer's paying fetch pays for one request, in USDC atomic units. @defaultValue '10000000' (10 USDC) */
  maxAmountPerPayment?: string | undefined
  /** @defaultValue a fetch that resolves `*.localhost` */
  fetch?: typeof globalThis.fetch | undefined
  /**
   * How long `buyer.fetch` waits out the Sandbox chain changing hands (503 + Retry-After; `svc serve --sandbox-chain
   * shared`) before answering the 503. @defaultValue 60_000
   */
  takeoverWaitMs?: number | undefined
}

/** A tenant's handle on a shared Sandbox: {@link TestSandbox}'s shape where it makes sense. */
export type SharedSandbox = {
  /** {base_url} */
  controlUrl: string
  /** {sandbox_base_url} */
  sandboxControlUrl: string
  /** The gateway URL of a Sandbox API: `http://{slug}.{sandbox_platform_domain}:PORT`. */
  gatewayUrl(slug: string): string
  chainId: number
  network: string
  usdc: { address: string; name: string; version: string; decimals: number }
  seller: {
    email: string
    /** A `svc_sandbox_` key (every scope when this run made it). */
    apiKey: string
    /** Control-plane client authenticated with `apiKey`. */
    client: SvcClient
  }
  buyer: {
    address: Hex
    privateKey: Hex
    /**
     * `fetch` that pays 402s (x402's exact and upto schemes), signing by svc's clock. It waits out a takeover of the
     * shared chain (503 + Retry-After) and funds the buyer again when the new chain refuses it for its balance.
     */
    fetch: typeof globalThis.fetch
  }
  /** `fetch` that resolves `*.localhost`. */
  fetch: typeof globalThis.fetch
  /** The chain's time and svc's clock (any tenant may read them). */
  time(): Promise<SandboxTime>
  /** Faults on this seller's own APIs only (`api` is required: a slug or id of one of them). */
  faults: {
    add(input: FaultInput & { api: string }): Promise<Fault>
    list(): Promise<Fault[]>
    clear(faultId?: string): Promise<number>
  }
  /**
   * This seller's events from now on, and the whole Sandbox's (`sandbox.reverted`, … with their `actor`). Resolves
   * once svc accepted the stream, so nothing that happens after the `await` is missed (over HTTP, unlike
   * startSandbox()'s in-process bus, subscribing takes a round trip). `break` or the signal ends it.
   */
  events(options?: { apiId?: string; signal?: AbortSignal }): Promise<AsyncIterableIterator<StreamEvent>>
  /** The admin credential's: a snapshot of the whole Sandbox (everyone's). */
  snapshot(): Promise<string>
  /** The admin credential's: everyone's Sandbox back to snapshot `id`. */
  revert(id: string): Promise<void>
  /** The admin credential's: everyone's clocks forward. */
  advanceTime(seconds: number): Promise<SandboxTime>
  /** The admin credential's: the Sandbox chain restarted, keeping its state. */
  restartChain(): Promise<ChainRestart>
  /** Ends this handle's event streams (the seller, its APIs and its money stay on the server). */
  stop(): Promise<void>
}

type LocalDev = {
  enabled: boolean
  chain_id: number
  network: string
  rpc_url: string | null
  usdc: { address: string; name: string; version: string; decimals: number }
}

/** Whole-Sandbox changes without the admin credential: refused here, before svc refuses them with a 403. */
function needsAdmin(what: string): never {
  throw new ForbiddenError(
    `${what} changes the whole shared Sandbox (every tenant's): it needs the admin credential, connectSandbox(url, { adminToken })`,
  )
}

/**
 * Connects to the shared Sandbox at `url` ({base_url} or {sandbox_base_url} of a `svc serve`, e.g. `SVC_BASE_URL`)
 * as a tenant: the given seller or a fresh one, a Sandbox API key, and a buyer funded by the faucet.
 */
export async function connectSandbox(
  url: string,
  credentials: SandboxCredentials = {},
  options: ConnectSandboxOptions = {},
): Promise<SharedSandbox> {
  const [
    { x402Client },
    { ExactEvmScheme },
    { UptoEvmScheme },
    { wrapFetchWithPayment },
    { generatePrivateKey, privateKeyToAccount },
    { createSvcClient },
    { localFetch },
    { retryTakeover },
  ] = await loadClientModules()
  const { buyerUsdc = '100', maxAmountPerPayment = '10000000', fetch = localFetch, takeoverWaitMs } = options
  const anonymous = createSvcClient({ baseUrl: url, fetch })
  const platform = await anonymous.request<{
    base_url: string
    sandbox_base_url: string
    sandbox_platform_domain: string
  }>('GET', '/config/platform')
  const sandboxControlUrl = platform.sandbox_base_url
  const localDev = await anonymous.request<LocalDev>('GET', '/config/local-dev')
  if (!localDev.enabled) throw new ForbiddenError(`${url} runs no Sandbox chain (svc serve --sandbox-chain none)`)

  // The faucet takes a seller's session (not a key): the given seller's, or a fresh one's.
  const sandbox = createSvcClient({ baseUrl: sandboxControlUrl, fetch })
  let email = credentials.email
  let jwt: string
  if (email === undefined) {
    if (credentials.apiKey !== undefined)
      throw new UsageError(
        "connectSandbox: an apiKey needs its seller's email and password too (the faucet takes a session)",
      )
    email = `ci-${randomBytes(6).toString('hex')}@svc.test`
    jwt = (await sandbox.auth.signup(email, randomBytes(12).toString('base64url'))).token
  } else jwt = (await sandbox.auth.login(email, credentials.password ?? '')).token
  const session = createSvcClient({ baseUrl: sandboxControlUrl, jwt, environment: 'development', fetch })
  const apiKey = credentials.apiKey ?? (await session.keys.create({ name: 'connectSandbox', scopes: [...scopes] })).key
  const client = createSvcClient({ baseUrl: sandboxControlUrl, apiKey, fetch })

  const privateKey = generatePrivateKey()
  const buyer = privateKeyToAccount(privateKey)
  const fund = async () => {
    await session.sandbox.faucet(buyer.address, 'eth')
    await session.sandbox.faucet(buyer.address, 'usdc', buyerUsdc)
  }
  await fund()
  const rpc = localDev.rpc_url === null ? undefined : { rpcUrl: localDev.rpc_url }
  // svc's clock may be ahead (someone's time travel): the buyer asks it at each payment. While the shared chain
  // changes hands svc cannot tell (503, or the process asked died under the question): the offset last read stands,
  // and the payment itself is then waited out.
  let offset: number | undefined
  const ahead = async () => {
    try {
      offset = (await client.time.get()).offset_seconds
    } catch (error) {
      if (offset === undefined || !(error instanceof SvcApiError && [0, 503].includes(error.status))) throw error
    }
    return offset
  }
  const payer = new x402Client()
    .register(localDev.network as `${string}:${string}`, signingBySvcClock(new ExactEvmScheme(buyer, rpc), ahead))
    .register(localDev.network as `${string}:${string}`, signingBySvcClock(new UptoEvmScheme(buyer, rpc), ahead))
  payer.setSpendControls({
    allowedAssets: [
      { network: localDev.network as `${string}:${string}`, asset: localDev.usdc.address, maxAmountPerPayment },
    ],
  })

  const admin =
    credentials.adminToken === undefined
      ? undefined
      : createSvcClient({ baseUrl: sandboxControlUrl, jwt: credentials.adminToken, fetch })
  const streams = new Set<AbortController>()
  const gateway = new URL(sandboxControlUrl)

  return {
    controlUrl: platform.base_url,
    sandboxControlUrl,
    gatewayUrl: (slug) =>
      `${gateway.protocol}//${slug}.${platform.sandbox_platform_domain}${gateway.port ? `:${gateway.port}` : ''}`,
    chainId: localDev.chain_id,
    network: localDev.network,
    usdc: { ...localDev.usdc },
    seller: { email, apiKey, client },
    buyer: {
      address: buyer.address,
      privateKey,
      fetch: retryTakeover(wrapFetchWithPayment(fetch, payer), { refund: fund, unavailableMs: takeoverWaitMs }),
    },
    fetch,
    time: () => client.time.get(),
    faults: {
      add: (input) => client.faults.add(input),
      list: async () => (await client.faults.list()).faults,
      clear: (faultId) => client.faults.clear(faultId),
    },
    async events({ apiId, signal } = {}) {
      // One controller ends it all: the caller's signal, `break`, stop(), or the stream refused.
      const stop = new AbortController()
      if (signal?.aborted) stop.abort()
      else signal?.addEventListener('abort', () => stop.abort(), { once: true })
      streams.add(stop)
      const queue = createEventQueue<StreamEvent>({ signal: stop.signal, onEnd: () => stop.abort() })
      const ended = () => {
        streams.delete(stop)
        stop.abort()
      }
      await new Promise<void>((resolve, reject) => {
        const reading = (async () => {
          for await (const event of client.events.streamAll({ apiId, signal: stop.signal, onOpen: resolve }))
            queue.push(event)
        })()
        reading.then(ended, (error) => {
          ended()
          reject(error)
        })
      })
      return queue.iterator
    },
    snapshot: async () => (await (admin ?? needsAdmin('a snapshot')).snapshots.take()).id,
    revert: async (id) => void (await (admin ?? needsAdmin('a revert')).snapshots.revert(id)),
    advanceTime: async (seconds) => (admin ?? needsAdmin('time travel')).time.advance(seconds),
    restartChain: async () => (admin ?? needsAdmin("the chain's restart")).chain.restart(),
    async stop() {
      for (const stream of streams) stream.abort()
      streams.clear()
    },
  }
}
