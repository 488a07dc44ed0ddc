import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Express } from 'express'
import { startChainServices, type ChainServices, type StartChainServicesOptions } from '../chain/services.js'
import { createApp } from './app.js'
import type { Gateway } from './gateway/index.js'
import { openDatabase, type OpenedDatabase } from './db/database.js'
import { controlUrl, defaultHosts, type Hosts } from './hosts.js'
import { listen } from './http.js'
import { loadInstallSecrets } from './secrets.js'
import { lockDataDir } from './data-lock.js'
import { applySeed, readSeedFile, type SeedResult } from './seed.js'

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
  const app = createApp({
    db: database.db,
    secrets: loadInstallSecrets(dataDir),
    hosts,
    chain: options.chain,
    autoVerify: options.autoVerify,
    productionFacilitatorUrl: options.productionFacilitatorUrl,
    dnsServers: options.dnsServers,
    log: options.log,
  })
  const listening = await listen(app, { port: options.port ?? 0 })
  hosts.port = listening.port
  return {
    app,
    hosts,
    database,
    dataDir,
    port: listening.port,
    controlUrl: controlUrl(hosts, 'production'),
    sandboxControlUrl: controlUrl(hosts, 'development'),
    async stop() {
      await listening.close()
      await app.gateway.close()
      await database.close()
      if (ephemeral) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export type StartSandboxOptions = Omit<StartServerOptions, 'chain'> &
  Omit<StartChainServicesOptions, 'log'> & {
    /** A seed file (YAML/JSON) applied once the server runs; see fixtures/demo-seed.yaml. */
    seedFile?: string | undefined
    /** Called with start-up progress lines. */
    onProgress?: ((line: string) => void) | undefined
  }

export type Sandbox = {
  chain: ChainServices
  server: RunningServer
  /** What the seed made, when a seed file was given. */
  seed?: SeedResult | undefined
  stop(): Promise<void>
}

/**
 * The composition root: the sandbox chain (Anvil, chain manager, facilitator) and the server (control planes and
 * gateway), started together; `stop` ends both, Anvil included, and closes the database.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<Sandbox> {
  const { dataDir, port, autoVerify, productionFacilitatorUrl, dnsServers, seedFile, log, onProgress = () => {}, ...chainOptions } = options
  let unlock = () => {}
  if (dataDir !== undefined) {
    mkdirSync(dataDir, { recursive: true })
    unlock = lockDataDir(dataDir)
  }
  let chain: ChainServices | undefined
  let server: RunningServer | undefined
  try {
    onProgress('starting the chain (Anvil), the chain manager and the facilitator…')
    chain = await startChainServices({ ...chainOptions, log })
    onProgress('opening the database and starting the control plane…')
    server = await startServer({ dataDir, port, chain, autoVerify, productionFacilitatorUrl, dnsServers, log })
    let seed: SeedResult | undefined
    if (seedFile) {
      onProgress(`applying the seed ${seedFile}…`)
      const spec = readSeedFile(seedFile, { demo_upstream: `http://127.0.0.1:${server.port}/_demo` })
      seed = await applySeed(spec, { controlUrl: server.controlUrl, sandboxControlUrl: server.sandboxControlUrl })
    }
    let stopped: Promise<void> | undefined
    const running = { chain, server }
    return {
      ...running,
      seed,
      stop() {
        stopped ??= (async () => {
          await running.server.stop()
          await running.chain.stop()
          unlock()
        })()
        return stopped
      },
    }
  } catch (error) {
    await server?.stop()
    await chain?.stop()
    unlock()
    throw error
  }
}
