/**
 * A cluster of `svc serve` processes on one PostgreSQL database (issue 26), as docs/postgres.md starts it: its blocks
 * run with bash, their example values (paths, the database's host, the facilitator)
 * replaced with the test's. Production only, in front of an external chain and facilitator: a `svc up --twin
 * base-sepolia` child, whose twin (eip155:84532) plays Base Sepolia and whose facilitator plays x402.org's.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { docBlock, pageOf } from '../docs/blocks.js'
import { startPostgres, type TestPostgres } from './postgres.js'
import { startServeScript, type ServeProcess } from './serve-process.js'
import { startSvcProcess, type SvcProcess } from './svc-process.js'

/** The text of the docs page the cluster follows (the one holding cluster.sh): its prose quotes the answers. */
export const serverSection = pageOf('cluster.sh')

/** The code of the docs block marked `file` (`<!-- readme-test: file -->`), wherever it sits. */
export function readmeBlock(file: string): string {
  return docBlock(file).code
}

/** The twin that plays the real chain, and the facilitator that settles on it. */
export type ExternalChain = {
  svc: SvcProcess
  network: `eip155:${number}`
  rpcUrl: string
  usdc: `0x${string}`
  facilitatorUrl: string
  /** Gives `address` `usdc` whole USDC on the twin (svc up's faucet). */
  fund(address: string, usdc: number): Promise<void>
}

export async function startExternalChain(): Promise<ExternalChain> {
  const svc = await startSvcProcess(['--twin', 'base-sepolia'])
  const twin = svc.ready.twins[0] as { network: `eip155:${number}`; rpc_url: string; usdc: `0x${string}` }
  return {
    svc,
    network: twin.network,
    rpcUrl: twin.rpc_url,
    usdc: twin.usdc,
    facilitatorUrl: svc.ready.facilitator_url,
    async fund(address, usdc) {
      const response = await fetch(`${svc.ready.chain_manager_url}/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address, network: 'base-sepolia', asset: 'usdc', amount: String(usdc) }),
      })
      if (response.status !== 200) throw new Error(`faucet: ${response.status} ${await response.text()}`)
    },
  }
}

export type Cluster = {
  postgres: TestPostgres
  /** The database the processes serve, as svc's role reaches it. */
  databaseUrl: string
  /** The same database as PostgreSQL's superuser (the test's own reads: the journal, the advisory locks). */
  adminUrl: string
  /** The processes started so far, in order (a killed one stays in the list). */
  processes: ServeProcess[]
  /** Starts one more process (the docs' cluster.sh with the next port and data dir). */
  start(): Promise<ServeProcess>
  /** Runs a docs block with the test's values (its example paths and URLs replaced, then `edit`); its stdout. */
  run(file: string, edit?: (code: string) => string): string
  stop(): Promise<void>
}

export type ClusterOptions = {
  /** The facilitator of production payments. */
  facilitatorUrl: string
  /** The network the APIs are paid on and its chain's RPC (the docs' `--rpc`). */
  network: string
  rpcUrl: string
  /** Flags after the docs' (the test's upstream range, auto-verified sign-ups). */
  extraArgs?: string[] | undefined
  /** PostgreSQL with its defaults (every commit flushed), for a benchmark. */
  durable?: boolean | undefined
}

/**
 * Starts PostgreSQL, runs the docs' database.sh (the keys, a role `svc_app` and its database `svc`), and answers
 * the cluster, with no process yet: `start()` each.
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cluster-'))
  const postgres = await startPostgres({ durable: options.durable })
  const server = postgres.url.replace(/^postgres:\/\/svc@/, '')
  /** The docs' example values, here. */
  const local = (code: string) =>
    code
      .replaceAll('/etc/svc', join(dir, 'etc'))
      .replaceAll('/var/lib/svc', join(dir, 'data'))
      .replaceAll('/var/backups', join(dir, 'backups'))
      .replaceAll('postgres://postgres@db.example.com/', `postgres://svc@${server}/`)
      .replaceAll('@db.example.com:5432/', `@${server}/`)
      .replaceAll('https://facilitator.example.com', options.facilitatorUrl)
      .replaceAll('eip155:84532=https://sepolia.base.org', `${options.network}=${options.rpcUrl}`)
  mkdirSync(join(dir, 'backups'))
  const run = (file: string, edit = (code: string) => code) =>
    execFileSync('bash', ['-euo', 'pipefail', '-c', edit(local(readmeBlock(file)))], { encoding: 'utf8' })
  run('database.sh')
  const processes: ServeProcess[] = []
  let started = 0
  const start = async () => {
    const index = started++
    const script = local(readmeBlock('cluster.sh'))
      .replace('--port 4021', '--port 0')
      .replace(`${join(dir, 'data')}/4021`, join(dir, 'data', `p${index}`))
    const svc = await startServeScript(`${script.trimEnd()} ${(options.extraArgs ?? []).join(' ')}\n`)
    processes.push(svc)
    return svc
  }
  return {
    postgres,
    databaseUrl: `postgres://svc_app@${server}/svc`,
    adminUrl: `${postgres.url}/svc`,
    processes,
    start,
    run,
    async stop() {
      await Promise.all(processes.map((svc) => svc.stop()))
      await postgres.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Whether a process is still running (not killed, not exited). */
export const isRunning = (svc: ServeProcess) => svc.child.exitCode === null && svc.child.signalCode === null
