import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Express } from 'express'
import { startChainServices, type ChainServices, type StartChainServicesOptions } from '../chain/services.js'
import { createApp } from './app.js'
import type { Gateway } from './gateway/index.js'
import { openDatabase, type OpenedDatabase } from './db/database.js'
import { controlUrl, defaultHosts, type Hosts } from '../core/hosts.js'
import { listen, type Listening } from '../core/http.js'
import { loadInstallSecrets } from './secrets.js'
import { reconcileChainEpoch } from './chain-epoch.js'
import type { ServerDeps } from './deps.js'
import { toSvcError } from '../core/errors.js'
import { startEndpointPurge } from './endpoint-purge.js'
import { lockDataDir } from './data-lock.js'

export type StartServerOptions = {
  /** Where the SQLite file and the install secrets live; omitted = a temporary directory removed on stop. */
  dataDir?: string | undefined
  /** Port of the one HTTP listener (control planes and gateway); 0 picks a free one. @defaultValue 0 */
  port?: number | undefined
  /** The sandbox chain services, for the Sandbox wallet and chain helper routes. */
  chain?: ChainServices | undefined
  autoVerify?: boolean | undefined
  /** Facilitator of production APIs (SVC_FACILITATOR_URL). */
  productionFacilitatorUrl?: string | undefined
  /** DNS servers for custom-domain verification (SVC_DNS_SERVERS). */
  dnsServers?: string[] | undefined
  log?: ((message: string) => void) | undefined
}

export type RunningServer = {
  app: Express & { gateway: Gateway }
  hosts: Hosts
  database: OpenedDatabase
  dataDir: string
  port: number
  /** {base_url} */
  controlUrl: string
  /** {sandbox_base_url} */
  sandboxControlUrl: string
  stop(): Promise<void>
}

/** Opens the database and serves the control planes (and, later, the gateway) on one port. */
export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  const ephemeral = options.dataDir === undefined
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-'))
  const database = await openDatabase(join(dataDir, 'svc.sqlite'))
  const hosts = defaultHosts(options.port ?? 0)
  const deps: ServerDeps = {
    db: database.db,
    secrets: loadInstallSecrets(dataDir),
    hosts,
    chain: options.chain,
    autoVerify: options.autoVerify,
    productionFacilitatorUrl: options.productionFacilitatorUrl,
    dnsServers: options.dnsServers,
    log: options.log,
  }
  const app = createApp(deps)
  // A chain this data dir has not seen (a fresh one, or one that came back empty) refunds the Sandbox wallets.
  const refunds: Promise<unknown>[] = []
  const reconcile = async (reason: string) => {
    const change = await reconcileChainEpoch(deps, reason)
    if (change) refunds.push(change.refunded)
  }
  await reconcile('the chain started empty')
  const onRestart = ({ reason }: { reason: string }) =>
    void reconcile(reason).catch((error) => options.log?.(`svc: recording the new chain failed: ${toSvcError(error).message}`))
  options.chain?.chain.on('restart', onRestart)
  const listening = await listen(app, { port: options.port ?? 0 })
  hosts.port = listening.port
  const stopPurge = startEndpointPurge(database.db, { log: options.log })
  return {
    app,
    hosts,
    database,
    dataDir,
    port: listening.port,
    controlUrl: controlUrl(hosts, 'production'),
    sandboxControlUrl: controlUrl(hosts, 'development'),
    async stop() {
      options.chain?.chain.off('restart', onRestart)
      await listening.close()
      await Promise.all(refunds)
      await stopPurge()
      await app.gateway.close()
      await database.close()
      if (ephemeral) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Where a data dir keeps its chain's state (Anvil's dump). */
export const chainStatePath = (dataDir: string) => join(dataDir, 'chain', 'state.json')

export type StartSandboxOptions = Omit<StartServerOptions, 'chain'> &
  Omit<StartChainServicesOptions, 'log'> & {
    /**
     * Serve the sample upstream of the demo seed (fixtures/demo-upstream.ts) on a listener of its own; its URL is
     * `demoUpstreamUrl`. Only a seed that names `{{demo_upstream}}` asks for it. @defaultValue false
     */
    demoUpstream?: boolean | undefined
    /** Called with start-up progress lines. */
    onProgress?: ((line: string) => void) | undefined
  }

export type Sandbox = {
  chain: ChainServices
  server: RunningServer
  /** `http://127.0.0.1:PORT` of the demo upstream, when `demoUpstream` asked for it. */
  demoUpstreamUrl?: string | undefined
  stop(): Promise<void>
}

/**
 * The composition root: the sandbox chain (Anvil, chain manager, facilitator) and the server (control planes and
 * gateway), started together; `stop` ends both, Anvil included, and closes the database.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const { dataDir, port, autoVerify, productionFacilitatorUrl, dnsServers, demoUpstream, log, onProgress = () => {}, ...chainOptions } = options
  let unlock = () => {}
  if (dataDir !== undefined) {
    mkdirSync(dataDir, { recursive: true })
    unlock = lockDataDir(dataDir)
  }
  let chain: ChainServices | undefined
  let server: RunningServer | undefined
  let demo: Listening | undefined
  try {
    onProgress('starting the chain (Anvil), the chain manager and the facilitator…')
    // With a data dir the chain is kept beside the database (offline chains; a fork starts from its URL each run).
    chain = await startChainServices({ statePath: dataDir === undefined ? undefined : chainStatePath(dataDir), ...chainOptions, log })
    onProgress('opening the database and starting the control plane…')
    server = await startServer({ dataDir, port, chain, autoVerify, productionFacilitatorUrl, dnsServers, log })
    if (demoUpstream) {
      const { startDemoUpstream } = await import('../fixtures/demo-upstream.js')
      demo = await startDemoUpstream()
    }
    let stopped: Promise<void> | undefined
    const running = { chain, server }
    return {
      ...running,
      demoUpstreamUrl: demo?.url,
      stop() {
        stopped ??= (async () => {
          await demo?.close()
          await running.server.stop()
          await running.chain.stop()
          unlock()
        })()
        return stopped
      },
    }
  } catch (error) {
    await demo?.close()
    await server?.stop()
    await chain?.stop()
    unlock()
    throw error
  }
}
