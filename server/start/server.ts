import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChainServices } from '../../chain/services.js'
import { controlUrl, defaultHosts, platformHosts, type Hosts } from '../../core/hosts.js'
import type { DatabaseTarget } from '../db/index.js'
import type { InstallSecrets } from '../data-dir/index.js'
import type { ServerTrust } from '../serve/index.js'
import type { ServerDeps } from '../deps.js'
import { UsageError } from '../../core/errors.js'
import { createClock } from '../../core/clock.js'
import { databaseFileName, tightenDataDir, tightenFiles } from '../data-dir/permissions.js'
import type { AnyStartOptions, RunningServer } from './options.js'

// The server's and the chain services' modules are imported when they are needed: `startSvc` (start-svc.ts) boots
// Anvil in its own process first, and loads them (the larger part of start-up) while Anvil starts.

/**
 * What `svc serve`'s flags come to, once checked (serve.ts `checkServe`): the database, the domains and public origin,
 * the secrets given from outside, the server's trust. Without it (`up`, `server`): `databaseUrl` as given (else the
 * data dir's SQLite file), `*.localhost`, the data dir's secrets, no trust.
 */
export type ServerSetup = {
  /** The database `databaseUrl` names. */
  database?: DatabaseTarget | undefined
  /** Gateway domains: `{slug}.{domain}`. @defaultValue `*.localhost` */
  domains?: { platformDomain: string; sandboxPlatformDomain?: string | undefined } | undefined
  /** The scheme and port of the URLs svc hands out, behind a proxy. @defaultValue http on `port` */
  publicOrigin?: Hosts['public']
  /** Install secrets given from outside (files or environment); the rest come from the data dir. */
  installSecrets?: Partial<InstallSecrets> | undefined
  /** Admin credential, trusted proxies, the upstream deny-list. @defaultValue none */
  trust?: ServerTrust | undefined
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
    import('../escrow/index.js'),
  ])
}

/**
 * The server part of `startSvc` (index.ts): opens the database and serves the control planes and the gateway on one
 * port, with `options.chain` attached (or none). `setup`: what `svc serve`'s flags came to. `chainStarting`: the chain
 * to attach instead, still starting: the database opens and the app is made meanwhile (closed again if the chain fails
 * to start).
 */
export async function openServer(
  options: AnyStartOptions,
  setup: ServerSetup = {},
  chainStarting?: Promise<ChainServices>,
): Promise<RunningServer> {
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
    { escrowJournalResolver, facilitatorHoldVoider },
  ] = await loadServerModules()
  const rpcUrls = parseRpcUrls(options.rpc)
  // An IPv6 address may come in brackets (--host [::]).
  const listenHost = (options.listenHost ?? '127.0.0.1').replace(/^\[|\]$/g, '')
  const ephemeral = options.dataDir === undefined
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-'))
  tightenDataDir(dataDir)
  const database = setup.database
    ? await openDatabaseUrl(setup.database, { log: options.log, busyTimeoutMs: options.busyTimeoutMs })
    : await openDatabase(options.databaseUrl ?? join(dataDir, databaseFileName), {
        log: options.log,
        busyTimeoutMs: options.busyTimeoutMs,
      })
  tightenFiles(dataDir)
  // A chain still starting is attached once it is up, after the app is made (as a team Sandbox's process attaches
  // the chain it takes over): the server's routes read `deps.chain` when they run.
  let chain = chainStarting ? undefined : options.chain
  const hosts = setup.domains ? platformHosts(options.port ?? 0, setup.domains) : defaultHosts(options.port ?? 0)
  hosts.public = setup.publicOrigin
  const lifecycle = createServerLifecycle()
  const deps: ServerDeps = {
    db: database.db,
    secrets: loadInstallSecrets(dataDir, setup.installSecrets),
    hosts,
    chain,
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
    clock: options.clock ?? chain?.clock ?? createClock(),
    sandboxState: createSandboxState(),
    // Processes sharing a PostgreSQL database share one event stream (LISTEN/NOTIFY and a replay ring in the database).
    events: database.notifications
      ? (await import('../cluster/index.js')).createClusterPaymentEvents(database.db, database.notifications, {
          log: options.log,
        })
      : createPaymentEvents(),
    trust: setup.trust,
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
  if (chainStarting)
    try {
      chain = await chainStarting
    } catch (error) {
      await app.gateway.close()
      await database.close()
      throw error
    }
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
  let attached = await attachChain(deps, chain, { database, dataDir })
  // On a database other processes share, the rows of one that dies are resolved by a survivor within seconds.
  const reaper = startJournalReaper(deps, {
    everyMs: options.reapEveryMs,
    resolveChannelActions,
    channelRow: resolveChannelJournalRow,
    escrowRow: escrowJournalResolver(facilitatorHoldVoider(deps)),
  })
  const listening = await listen(app, { port: options.port ?? 0, host: listenHost })
  hosts.port = listening.port
  // A server's upstreams may not reach its own listener at any of its addresses (loopback ones are refused anyway).
  const listeners = ownPeers(listenHost, listening.port)
  setup.trust?.peers.push(...listeners)
  // Nor, on PostgreSQL, any other process of the database: each names its listeners there, before it is ready.
  const clusterPeers = setup.trust && database.notifications ? await import('../serve/index.js') : undefined
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
      listeners: clusterListeners(chain),
      log: options.log,
    }))
  if (setup.trust) setup.trust.cluster = cluster
  const stopPurge = startEndpointPurge(database.db, { log: options.log, clock })
  // Payment channels' managers claim and settle on schedule from now, not from a receiver's next request.
  void app.gateway.startChannelManagers()
  return {
    app,
    hosts,
    database,
    dataDir,
    listenHost,
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
