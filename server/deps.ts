import type { Kysely } from 'kysely'
import type { ChainServices } from '../chain/services.js'
import type { Clock } from '../core/clock.js'
import type { Hosts } from '../core/hosts.js'
import type { Database } from './db/tables.js'
import type { PaymentEvents } from './payment-events.js'
import type { InstallSecrets } from './data-dir/secrets.js'
import type { SandboxState } from './sandbox/payment-gate.js'
import type { SnapshotStore } from './sandbox/snapshots.js'
import type { AuthThrottleLimits, defaultAuthThrottleLimits } from './serve/throttle.js'
import type { ServerTrust } from './serve/server-trust.js'
import type { ServerLifecycle } from './serve/lifecycle.js'
import type { ProductionChains } from './journal/production-chains.js'
import type { ChainOwnerView } from './cluster/chain-owner-view.js'
import type { FaultBook } from '../chain/faults/book.js'

/** The limits of the paid routes a server may set (tests lower them); unset ones are paidRouteDefaults (gateway/payment-flow.ts). */
export type PaidRouteLimits = {
  /** Deadline for the whole upstream exchange (connect, headers, body). @defaultValue 30000 */
  timeoutMs?: number | undefined
  /** Largest upstream answer the gateway holds while it settles. @defaultValue 10 MiB */
  maxResponseBytes?: number | undefined
  /** How often buffered traffic counters are written. @defaultValue 250 */
  statsFlushEveryMs?: number | undefined
}

/** What the control plane and the gateway need; built once by startServer (server/start/server.ts). */
export type ServerDeps = {
  db: Kysely<Database>
  secrets: InstallSecrets
  hosts: Hosts
  /** The sandbox chain services; without them the Sandbox wallet and chain helper routes answer 503. */
  chain?: ChainServices | undefined
  /**
   * svc serve --sandbox-chain shared: who owns the team Sandbox's chain (server/cluster/). Without `chain`, this
   * process verifies and settles Sandbox payments through the owner and forwards the chain routes to it.
   */
  chainOwner?: ChainOwnerView | undefined
  /** With `chainOwner`: the Sandbox's faults in the database, struck by this process's gateway without the chain. */
  sandboxFaults?: FaultBook | undefined
  /** Facilitator of production APIs (SVC_FACILITATOR_URL); without it their paid routes answer 503. */
  productionFacilitatorUrl?: string | undefined
  /** The RPCs of production networks (--rpc): recovery checks their unfinished payments there. @defaultValue none */
  productionChains?: ProductionChains | undefined
  /** DNS servers (host or host:port) that custom-domain verification asks (SVC_DNS_SERVERS); default: the system's. */
  dnsServers?: string[] | undefined
  /** Mark new accounts verified (CI). */
  autoVerify?: boolean | undefined
  /** Lifetime of a login session. @defaultValue 7 days */
  jwtTtlSeconds?: number | undefined
  /** Limits of sign-up, login and email verification (per process in memory; on PostgreSQL, shared by every process). @defaultValue {@link defaultAuthThrottleLimits} */
  authThrottle?: Partial<AuthThrottleLimits> | undefined
  log?: ((message: string) => void) | undefined
  /** The data dir: a write that fails because it is full or read-only answers a 503 naming it. */
  dataDir?: string | undefined
  /**
   * svc's clock: ttl endpoints, session JWTs and verification tokens are judged by it; `svc time advance` moves it.
   * @defaultValue the machine's clock (which never moves)
   */
  clock?: Clock | undefined
  /** The gate of paid requests and the in-memory state a revert resets (server/sandbox/payment-gate.ts). */
  sandboxState?: SandboxState | undefined
  /** The Sandbox's snapshots (server/sandbox/snapshots.ts); without them the snapshot routes answer 503. */
  snapshots?: SnapshotStore | undefined
  /** The live payment events: the gateway publishes, `GET /events` streams. @defaultValue a bus of the app's own */
  events?: PaymentEvents | undefined
  /** The upstream deadline, the largest answer held and the counters' flush period of the paid routes. @defaultValue paidRouteDefaults (gateway/payment-flow.ts) */
  paidRoutes?: PaidRouteLimits | undefined
  /** How long the schema probe of a new GET endpoint waits for the upstream. @defaultValue 2000 (server/upstream/schema-inference.ts) */
  schemaProbeTimeoutMs?: number | undefined
  /**
   * svc as a server (`svc serve`): admin credential instead of "from this machine", the trusted proxy's client
   * address, and the upstream guard's deny-list. @defaultValue none: `svc up`'s loopback trust
   */
  trust?: ServerTrust | undefined
  /** Health, readiness and drain (server/serve/lifecycle.ts). @defaultValue one of the app's own */
  lifecycle?: ServerLifecycle | undefined
}
