import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Express } from 'express'
import type { ChainServices } from '../../chain/services.js'
import type { Gateway } from '../gateway/index.js'
import type { OpenedDatabase } from '../db/database.js'
import { controlUrl, defaultHosts, platformHosts, type Hosts } from '../../core/hosts.js'
import type { DatabaseTarget } from '../db/database-url.js'
import type { InstallSecrets } from '../data-dir/secrets.js'
import type { AuthThrottleLimits, defaultAuthThrottleLimits, ServerLifecycle, ServerTrust } from '../serve/index.js'
import type { PaidRouteLimits, ServerDeps } from '../deps.js'
import type { PaymentEvents } from '../payment-events.js'
import { UsageError } from '../../core/errors.js'
import { createClock, type Clock } from '../../core/clock.js'
import { databaseFileName, tightenDataDir, tightenFiles } from '../data-dir/permissions.js'

// The server's and the chain services' modules are imported when they are needed: `startSvc` (start-svc.ts) boots
// Anvil in its own process first, and loads them (the larger part of start-up) while Anvil starts.

export type StartServerOptions = {
  /** Where the SQLite file and the install secrets live; omitted = a temporary directory removed on stop. */
  dataDir?: string | undefined
  /**
   * A PostgreSQL database (`postgres://user:password@host:port/database`, which must exist) instead of the data dir's
   * SQLite file (server/db/database.ts `openDatabase`). The Sandbox's snapshots need the SQLite file: without it
   * their routes answer 503.
   */
  databaseUrl?: string | undefined
  /** Port of the one HTTP listener (control planes and gateway); 0 picks a free one. @defaultValue 0 */
  port?: number | undefined
  /** The sandbox chain services, for the Sandbox wallet and chain helper routes. */
  chain?: ChainServices | undefined
  autoVerify?: boolean | undefined
  /** Facilitator of production APIs (SVC_FACILITATOR_URL). */
  productionFacilitatorUrl?: string | undefined
  /**
   * RPCs of production networks, `<network>=<url>` (svc serve --rpc, SVC_RPC): unfinished production payments are
   * checked on their chain (server/journal/production-chains.ts). @defaultValue none: they cannot be checked
   */
  rpc?: readonly string[] | undefined
  /** The most blocks one `eth_getLogs` of that check spans. @defaultValue 2_000 */
  rpcLogBlocks?: number | undefined
  /** PostgreSQL: how often rows of processes that are gone are looked for (server/cluster/reaper.ts). @defaultValue 250 */
  reapEveryMs?: number | undefined
  /** DNS servers for custom-domain verification (SVC_DNS_SERVERS). */
  dnsServers?: string[] | undefined
  /** Limits of sign-up, login and email verification. @defaultValue {@link defaultAuthThrottleLimits} */
  authThrottle?: Partial<AuthThrottleLimits> | undefined
  /** Limits of the paid routes (tests lower them). @defaultValue paidRouteDefaults (gateway/payment-flow.ts) */
  paidRoutes?: PaidRouteLimits | undefined
  /** SQLite: how long opening waits for a file another process holds (tests shorten it). @defaultValue 5000 */
  busyTimeoutMs?: number | undefined
  /** How long the schema probe of a new GET endpoint waits for the upstream (tests shorten it). @defaultValue 2000 */
  schemaProbeTimeoutMs?: number | undefined
  log?: ((message: string) => void) | undefined
  /** svc's clock (time travel moves it). @defaultValue the chain services' clock, or one of its own without a chain */
  clock?: Clock | undefined
  /** The address the listener binds (svc serve --host). @defaultValue 127.0.0.1 */
  listenHost?: string | undefined
  /** Gateway domains of a server (svc serve --platform-domain): `{slug}.{domain}`. @defaultValue `*.localhost` */
  domains?: { platformDomain: string; sandboxPlatformDomain?: string | undefined } | undefined
  /** The scheme and port of the URLs svc hands out, behind a proxy (svc serve --public-scheme). @defaultValue http on `port` */
  publicOrigin?: Hosts['public']
  /** Where the data lives (svc serve --database-url). @defaultValue the data dir's SQLite file */
  database?: DatabaseTarget | undefined
  /** Install secrets given from outside (svc serve's files or environment); the rest come from the data dir. */
  secrets?: Partial<InstallSecrets> | undefined
  /** Server mode (svc serve): admin credential, trusted proxies, the upstream deny-list. @defaultValue none */
  trust?: ServerTrust | undefined
  /**
   * svc serve --sandbox-chain shared (PostgreSQL): the chain is a team Sandbox's, owned by one process
   * (server/cluster/shared-chain.ts attaches it here when this one owns it). `everyMs`: how often the owner row is
   * read again. @defaultValue none: the chain is `chain`
   */
  sharedChain?: { everyMs?: number | undefined } | undefined
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

/** The server's modules (their first import is the larger part of start-up). */
export function loadServerModules() {
  return Promise.all([
    import('../db/database.js'),
    import('../app.js'),
    import('../data-dir/secrets.js'),
    import('../../core/http.js'),
    import('../db/endpoint-purge.js'),
    import('../sandbox/index.js'),
    import('../payment-events.js'),
    import('../db/database-url.js'),
    import('../serve/index.js'),
    import('../serve/index.js'),
    import('../journal/index.js'),
    import('../cluster/index.js'),
    import('./chain-attachment.js'),
    import('../sandbox/index.js'),
    import('../channels/index.js'),
    import('../channels/index.js'),
  ])
}

/** Opens the database and serves the control planes (and, later, the gateway) on one port. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const [
    { openDatabase },
    { createApp },
    { loadInstallSecrets },
    { listen },
    { startEndpointPurge },
    { createSandboxState },
    { createPaymentEvents },
    { openDatabaseUrl },
    { createServerLifecycle },
    { ownPeers },
    { createProductionChains, parseRpcUrls },
    { startJournalReaper },
    { attachChain },
    { shareClock },
    { resolveChannelActions },
    { resolveChannelJournalRow },
  ] = await loadServerModules()
  const rpcUrls = parseRpcUrls(options.rpc)
  const ephemeral = options.dataDir === undefined
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-'))
  tightenDataDir(dataDir)
  const database = options.database
    ? await openDatabaseUrl(options.database, { log: options.log, busyTimeoutMs: options.busyTimeoutMs })
    : await openDatabase(options.databaseUrl ?? join(dataDir, databaseFileName), {
        log: options.log,
        busyTimeoutMs: options.busyTimeoutMs,
      })
  tightenFiles(dataDir)
  const hosts = options.domains ? platformHosts(options.port ?? 0, options.domains) : defaultHosts(options.port ?? 0)
  hosts.public = options.publicOrigin
  const lifecycle = createServerLifecycle()
  const deps: ServerDeps = {
    db: database.db,
    secrets: loadInstallSecrets(dataDir, options.secrets),
    hosts,
    chain: options.chain,
    autoVerify: options.autoVerify,
    productionFacilitatorUrl: options.productionFacilitatorUrl,
    productionChains:
      rpcUrls.size > 0 ? createProductionChains(rpcUrls, { maxLogBlocks: options.rpcLogBlocks }) : undefined,
    dnsServers: options.dnsServers,
    authThrottle: options.authThrottle,
    paidRoutes: options.paidRoutes,
    schemaProbeTimeoutMs: options.schemaProbeTimeoutMs,
    log: options.log,
    dataDir,
    clock: options.clock ?? options.chain?.clock ?? createClock(),
    sandboxState: createSandboxState(),
    // Processes sharing a PostgreSQL database share one event stream (LISTEN/NOTIFY and a replay ring in the database).
    events: database.notifications
      ? (await import('../cluster/index.js')).createClusterPaymentEvents(database.db, database.notifications, {
          log: options.log,
        })
      : createPaymentEvents(),
    trust: options.trust,
    lifecycle,
  }
  const clock = deps.clock!
  // svc serve --sandbox-chain shared: who owns the team Sandbox's chain (server/cluster/chain-owner-view.ts).
  if (options.sharedChain) {
    if (!database.dialect.sharedByProcesses)
      throw new UsageError('--sandbox-chain shared needs a PostgreSQL --database-url')
    const [{ createChainOwnerView }, { clusterSecret }, { createFaultBook }, { createPostgresFaultStore }] =
      await Promise.all([
        import('../cluster/index.js'),
        import('../cluster/index.js'),
        import('../../chain/faults/book.js'),
        import('../db/faults.js'),
      ])
    deps.sandboxFaults = createFaultBook()
    await deps.sandboxFaults.keepIn(createPostgresFaultStore(database.db))
    deps.chainOwner = await createChainOwnerView({
      db: database.db,
      notifications: database.notifications,
      secret: clusterSecret(deps.secrets.jwtSecret),
      everyMs: options.sharedChain.everyMs,
      log: options.log,
    })
  }
  const app = await createApp(deps)
  // On PostgreSQL every process takes svc's clock offset from every process's changes (LISTEN/NOTIFY).
  const stopClock = database.dialect.sharedByProcesses
    ? await shareClock({
        db: deps.db,
        clock,
        chain: () => deps.chain,
        exclusive: (change) => deps.sandboxState!.exclusive(change),
        log: deps.log,
      })
    : async () => {}
  // The chain's stores, its epoch, recovery from it, its restarts (svc serve --sandbox-chain shared: again later).
  let attached = await attachChain(deps, options.chain, { database, dataDir })
  // On a database other processes share, the rows of one that dies are resolved by a survivor within seconds.
  const reaper = startJournalReaper(deps, {
    everyMs: options.reapEveryMs,
    resolveChannelActions,
    channelRow: resolveChannelJournalRow,
  })
  const listening = await listen(app, { port: options.port ?? 0, host: options.listenHost })
  hosts.port = listening.port
  // A server's upstreams may not reach its own listener at any of its addresses (loopback ones are refused anyway).
  const listeners = ownPeers(options.listenHost ?? '127.0.0.1', listening.port)
  options.trust?.peers.push(...listeners)
  // Nor, on PostgreSQL, any other process of the database: each names its listeners there, before it is ready.
  const clusterPeers = options.trust && database.notifications ? await import('../serve/index.js') : undefined
  const clusterListeners = (chain: ChainServices | undefined) => [
    ...listeners,
    ...(clusterPeers?.chainListeners(chain) ?? []),
  ]
  const cluster =
    clusterPeers &&
    database.notifications &&
    (await clusterPeers.shareClusterPeers({
      db: database.db,
      notifications: database.notifications,
      owner: (await import('../db/process-owner.js')).processOwnerOf(database.db),
      listeners: clusterListeners(options.chain),
      log: options.log,
    }))
  if (options.trust) options.trust.cluster = cluster
  const stopPurge = startEndpointPurge(database.db, { log: options.log, clock })
  // Payment channels' managers claim and settle on schedule from now, not from a receiver's next request.
  void app.gateway.startChannelManagers()
  return {
    app,
    hosts,
    database,
    dataDir,
    listenHost: options.listenHost ?? '127.0.0.1',
    port: listening.port,
    controlUrl: controlUrl(hosts, 'production'),
    sandboxControlUrl: controlUrl(hosts, 'development'),
    events: deps.events!,
    lifecycle,
    clock,
    async drain(timeoutMs) {
      lifecycle.startDraining()
      // No new connections; idle keep-alive ones close now, busy ones after their answer (Connection: close).
      listening.server.close()
      listening.server.closeIdleConnections()
      return lifecycle.idle(timeoutMs)
    },
    async attachChain(chain) {
      await attached.detach()
      attached = await attachChain(deps, chain, { database, dataDir })
      await cluster?.publish(clusterListeners(chain))
      void app.gateway.startChannelManagers()
    },
    async detachChain() {
      await attached.detach()
      attached = await attachChain(deps, undefined, { database, dataDir })
      await cluster?.publish(clusterListeners(undefined))
    },
    async stop() {
      await reaper?.close()
      await listening.close()
      await cluster?.close()
      await stopPurge()
      await app.gateway.close()
      await deps.events?.close?.()
      await attached.detach()
      await stopClock()
      await deps.chainOwner?.close()
      await deps.sandboxFaults?.keepIn()
      await database.close()
      if (ephemeral) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
