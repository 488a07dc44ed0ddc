import type { ChannelsDeps } from './channels/index.js'
import type { ClusterDeps } from './cluster/index.js'
import type { JournalDeps } from './journal/index.js'
import type { PaymentsDeps } from './payments/index.js'
import type { SandboxDeps, SnapshotStore } from './sandbox/index.js'
import type { AuthThrottleLimits, defaultAuthThrottleLimits, ServerLifecycle } from './serve/index.js'
import type { UpstreamDeps } from './upstream/index.js'

/** The limits of the paid routes a server may set (tests lower them); unset ones are paidRouteDefaults (gateway/payment-flow.ts). */
export type PaidRouteLimits = {
  /** Deadline for the whole upstream exchange (connect, headers, body). @defaultValue 30000 */
  timeoutMs?: number | undefined
  /** Largest upstream answer the gateway holds while it settles. @defaultValue 10 MiB */
  maxResponseBytes?: number | undefined
  /** How often buffered traffic counters are written. @defaultValue 250 */
  statsFlushEveryMs?: number | undefined
}

/**
 * What the control plane and the gateway need; built once by startServer (server/start/server.ts). Each room below
 * them declares the part it reads (`JournalDeps`, `ClusterDeps`, …, in `<room>/deps.ts`, with those fields' docs:
 * `db`, `secrets`, `hosts`, `chain`, `chainOwner`, `sandboxFaults`, `productionFacilitatorUrl`, `productionChains`,
 * `log`, `dataDir`, `clock`, `sandboxState`, `events`, `trust`); this is their composition and the control plane's own.
 */
export type ServerDeps = JournalDeps &
  ClusterDeps &
  SandboxDeps &
  UpstreamDeps &
  PaymentsDeps &
  ChannelsDeps & {
    /** DNS servers (host or host:port) that custom-domain verification asks (SVC_DNS_SERVERS); default: the system's. */
    dnsServers?: string[] | undefined
    /** Mark new accounts verified (CI). */
    autoVerify?: boolean | undefined
    /** Lifetime of a login session. @defaultValue 7 days */
    jwtTtlSeconds?: number | undefined
    /** Limits of sign-up, login and email verification (per process in memory; on PostgreSQL, shared by every process). @defaultValue {@link defaultAuthThrottleLimits} */
    authThrottle?: Partial<AuthThrottleLimits> | undefined
    /** The Sandbox's snapshots (server/sandbox/snapshots.ts); without them the snapshot routes answer 503. */
    snapshots?: SnapshotStore | undefined
    /** The upstream deadline, the largest answer held and the counters' flush period of the paid routes. @defaultValue paidRouteDefaults (gateway/payment-flow.ts) */
    paidRoutes?: PaidRouteLimits | undefined
    /** How long the schema probe of a new GET endpoint waits for the upstream. @defaultValue 2000 (server/upstream/schema-inference.ts) */
    schemaProbeTimeoutMs?: number | undefined
    /** Health, readiness and drain (server/serve/health.ts). @defaultValue one of the app's own */
    lifecycle?: ServerLifecycle | undefined
  }
