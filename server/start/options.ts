import type { ChainServices, StartChainServicesOptions } from '../../chain/services.js'
import type { Clock } from '../../core/clock.js'
import type { SharedChain } from '../cluster/index.js'
import type { PaidRouteLimits } from '../deps.js'
import type { AuthThrottleLimits, defaultAuthThrottleLimits, ServeSecretSources } from '../serve/index.js'
import type { Express } from 'express'
import type { Hosts } from '../../core/hosts.js'
import type { OpenedDatabase } from '../db/index.js'
import type { Gateway } from '../gateway/index.js'
import type { PaymentEvents } from '../payment-events.js'
import type { ServerLifecycle } from '../serve/index.js'

/**
 * How svc starts (`startSvc({ mode, … })`; each mode reads the groups of options below that its type names):
 * - `up`: `svc up`, and the SDK's `startSandbox()`: the Sandbox chain (Anvil, chain manager, facilitator) and the
 *   server in one process, on loopback, with the data dir's secrets. `startSandbox()` is this mode with an ephemeral
 *   data dir, port 0 and `autoVerify`, not a mode of its own: what a test suite runs is then exactly what `svc up`
 *   runs, and there is no second start-up to keep equal to it.
 * - `serve`: `svc serve` (and the server side `connectSandbox()` joins): every flag is checked before anything
 *   starts; then the server with a server's trust (bind address, domains, trusted proxies, secrets from files or the
 *   environment, an admin token), on SQLite or PostgreSQL, with the Sandbox chain `local` (as `up`), `none` or
 *   `shared` (one process of those on one PostgreSQL database owns it).
 * - `server`: the server alone, on chain services started elsewhere (`chain`) or none, with no data-dir lock: tests
 *   that run several servers on one chain or one data dir.
 */
export type SvcMode = 'up' | 'serve' | 'server'

/**
 * Whether `svc serve` runs the Sandbox chain: `local` (Anvil on loopback, as `svc up`), `none` (production only), or
 * `shared` (a team Sandbox on PostgreSQL: one process of all those sharing the database owns the chain, the others
 * pay and forward through it: server/cluster/).
 */
export const sandboxChainModes = ['local', 'none', 'shared'] as const
export type SandboxChainMode = (typeof sandboxChainModes)[number]

/** Every mode: the data dir, the listener's port, and the server's settings. */
type CommonOptions = {
  /**
   * The data dir: the lock, the SQLite file, the chain's state and snapshots, and the install secrets (those not given
   * from outside). @defaultValue a temporary directory, removed on stop
   */
  dataDir?: string | undefined
  /** Port of the one HTTP listener (control planes and gateway); 0 picks a free one. @defaultValue 0 */
  port?: number | undefined
  /** Mark new accounts verified at once. @defaultValue false */
  autoVerify?: boolean | undefined
  /** Facilitator of production APIs (SVC_FACILITATOR_URL). */
  productionFacilitatorUrl?: string | undefined
  /**
   * RPCs of production networks, `<network>=<url>` (--rpc, SVC_RPC): unfinished production payments are checked on
   * their chain (server/journal/production-chains.ts). @defaultValue none: they cannot be checked
   */
  rpc?: readonly string[] | undefined
  /** The most blocks one `eth_getLogs` of that check spans (svc serve refuses one below 1). @defaultValue 2_000 */
  rpcLogBlocks?: number | undefined
  /** PostgreSQL: how often rows of processes that are gone are looked for (server/cluster/reaper.ts). @defaultValue 250 */
  reapEveryMs?: number | undefined
  /** DNS servers for custom-domain verification (SVC_DNS_SERVERS). */
  dnsServers?: string[] | undefined
  /** Limits of sign-up, login and email verification. @defaultValue {@link defaultAuthThrottleLimits} */
  authThrottle?: Partial<AuthThrottleLimits> | undefined
  /** Limits of the paid routes (tests lower them). @defaultValue paidRouteDefaults (server/payments/) */
  paidRoutes?: PaidRouteLimits | undefined
  /** SQLite: how long opening waits for a file another process holds (tests shorten it). @defaultValue 5000 */
  busyTimeoutMs?: number | undefined
  /** How long the schema probe of a new GET endpoint waits for the upstream (tests shorten it). @defaultValue 2000 */
  schemaProbeTimeoutMs?: number | undefined
  log?: ((message: string) => void) | undefined
  /** Start-up progress lines. */
  onProgress?: ((line: string) => void) | undefined
  /** The Sandbox chain's services are up (`up`, `serve --sandbox-chain local`), before the server opens: what needs
   * only the chain (`svc exec`'s buyer funded) starts beside the rest of the start. */
  onChain?: ((chain: ChainServices) => void) | undefined
  /** svc's clock (time travel moves it). @defaultValue the chain services' clock, or one of its own without a chain */
  clock?: Clock | undefined
}

/**
 * `up` (and `serve`'s `binary` and `relay`): the Sandbox chain this process runs, as chain/services.ts takes it
 * (Anvil listens on loopback; the listener's `port` is the server's, `rpcPort` Anvil's).
 */
type ChainOptions = Omit<
  StartChainServicesOptions,
  | 'host'
  | 'port'
  | 'log'
  | 'clock'
  | 'anvil'
  | 'statePath'
  | 'twin'
  | 'pidFile'
  | 'twinAnvils'
  | 'twinSpecs'
  | 'twinPidFile'
> & {
  /**
   * Serve the sample upstream of the demo seed (fixtures/demo-upstream.ts) on a listener of its own; its URL is
   * `demoUpstreamUrl`. Only a seed that names `{{demo_upstream}}` asks for it. @defaultValue false
   */
  demoUpstream?: boolean | undefined
}

/** `serve` and `server`: where the data lives. */
type DatabaseOptions = {
  /**
   * A SQLite file path or `file:` URL, or a PostgreSQL database (`postgres://user:password@host:port/database`,
   * which must exist), instead of the data dir's SQLite file. The Sandbox's snapshots need the SQLite file: without
   * it their routes answer 503. @defaultValue the data dir's svc.sqlite
   */
  databaseUrl?: string | undefined
}

/** `serve`: a server's flags, each checked before anything starts. */
type ServeOptions = {
  /** The address the listener binds (--host, an IP address). @defaultValue 127.0.0.1 */
  listenHost?: string | undefined
  /** Production gateways at `{slug}.{platformDomain}`, control at api.… @defaultValue `localhost` (svc up's hosts) */
  platformDomain?: string | undefined
  /** Sandbox gateways at `{slug}.{sandboxPlatformDomain}`. @defaultValue `dev.{platformDomain}` */
  sandboxPlatformDomain?: string | undefined
  /** The scheme of the URLs svc hands out (https behind a TLS proxy). @defaultValue http */
  publicScheme?: string | undefined
  /** Their port. @defaultValue 443 for https, else the port svc listens on */
  publicPort?: number | undefined
  /** Proxies whose X-Forwarded-For / -Proto are believed (addresses, CIDR ranges). @defaultValue none */
  trustProxy?: readonly string[] | undefined
  /** Non-public ranges upstreams may reach (an internal API's network). @defaultValue none */
  allowUpstream?: readonly string[] | undefined
  /** The JWT, wallet, offer-receipt keys and the admin token, each from a file or an environment variable. */
  secrets?: ServeSecretSources | undefined
  /** @defaultValue local */
  sandboxChain?: SandboxChainMode | undefined
  /**
   * `shared`: how the other processes reach this one (a URL of its listener). @defaultValue `http://<host>:<port>`,
   * 127.0.0.1 for a listener on every address
   */
  advertiseUrl?: string | undefined
  /** `shared`: how often a standby tries to take the chain over. @defaultValue 1_000 */
  leaseEveryMs?: number | undefined
}

/** `server`: what runs beside the server. */
type ServerModeOptions = {
  /** The Sandbox chain's services, started by the caller (who stops them). @defaultValue none: Sandbox APIs answer 503 */
  chain?: ChainServices | undefined
  /**
   * A team Sandbox's process that does not own the chain (svc serve --sandbox-chain shared, without the lease): the
   * chain owner is read from the database (server/cluster/chain-owner-view.ts). `everyMs`: how often the owner row is
   * read again. @defaultValue none: the chain is `chain`
   */
  sharedChain?: { everyMs?: number | undefined } | undefined
}

type OptionsOf = {
  up: CommonOptions & ChainOptions
  serve: CommonOptions & Pick<ChainOptions, 'binary' | 'relay'> & DatabaseOptions & ServeOptions
  server: CommonOptions & DatabaseOptions & ServerModeOptions
}

/** `startSvc`'s options: the mode, and the options that mode reads (each named once, above). */
export type StartSvcOptions<M extends SvcMode = SvcMode> = M extends SvcMode ? { mode: M } & OptionsOf[M] : never

/** Any mode's options, as the start-up's parts read them (start/*.ts). */
export type AnyStartOptions = { mode: SvcMode } & CommonOptions &
  Partial<ChainOptions & DatabaseOptions & ServeOptions & ServerModeOptions>

export type RunningSvc<M extends SvcMode = SvcMode> = {
  server: RunningServer
  /**
   * The Sandbox chain's services: always in `up`; in `serve` when this process runs them (`shared`: while it owns the
   * chain, at the time of the call); in `server`, the ones given.
   */
  chain: M extends 'up' ? ChainServices : ChainServices | undefined
  /** `serve --sandbox-chain shared`: the lease and whether this process owns the chain. */
  sharedChain?: SharedChain | undefined
  /** `http://127.0.0.1:PORT` of the demo upstream, when `demoUpstream` asked for it. */
  demoUpstreamUrl?: string | undefined
  /** Stops what this start started (not a `server`'s given chain), closes the database, releases the data dir. */
  stop(): Promise<void>
}

export type RunningServer = {
  app: Express & { gateway: Gateway }
  hosts: Hosts
  database: OpenedDatabase
  dataDir: string
  /** The address the listener binds. */
  listenHost: string
  port: number
  /** {base_url} */
  controlUrl: string
  /** {sandbox_base_url} */
  sandboxControlUrl: string
  /** The live payment events the gateway publishes (`GET /events` streams them). */
  events: PaymentEvents
  lifecycle: ServerLifecycle
  /** svc's clock (time travel moves it). */
  clock: Clock
  /**
   * Attaches the Sandbox chain's services at runtime (the team Sandbox's process that took the chain over):
   * server/start/chain-attachment.ts's start-up work runs for it.
   */
  attachChain(chain: ChainServices): Promise<void>
  /** Detaches them (the process gave the chain up): Sandbox payments go through the owner again. */
  detachChain(): Promise<void>
  /**
   * Stops accepting connections and fails readiness, then waits for the requests in flight (and the settlements in
   * them) to finish: true when they did within `timeoutMs`. `stop` afterwards closes what is left.
   */
  drain(timeoutMs: number): Promise<boolean>
  stop(): Promise<void>
}
