import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Express } from 'express'
import type { ChainServices } from '../chain/services.js'
import { createApp } from './app.js'
import { openDatabase, type OpenedDatabase } from './db/database.js'
import { controlUrl, defaultHosts, type Hosts } from './hosts.js'
import { listen } from './http.js'
import { loadInstallSecrets } from './secrets.js'

export type StartServerOptions = {
  /** Where the SQLite file and the install secrets live; omitted = a temporary directory removed on stop. */
  dataDir?: string | undefined
  /** Port of the one HTTP listener (control planes and gateway); 0 picks a free one. @defaultValue 0 */
  port?: number | undefined
  /** The sandbox chain services, for the Sandbox wallet and chain helper routes. */
  chain?: ChainServices | undefined
  autoVerify?: boolean | undefined
  log?: ((message: string) => void) | undefined
}

export type RunningServer = {
  app: Express
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
      await database.close()
      if (ephemeral) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
