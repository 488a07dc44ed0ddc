/**
 * Issue 26's figures for a cluster of `svc serve` processes on one PostgreSQL database (durable: its defaults), set up
 * as the README's "Running svc on a server" and test/cli/serve-cluster.test.ts do (production APIs, `svc up --twin
 * base-sepolia` as the external chain and facilitator):
 * - unpaid 402s per second of three processes (round robin) against one, rounds alternating (target ≥ 1.5× on 2 cores);
 * - paid p50 of one buyer through `svc serve` on PostgreSQL against `svc up` on SQLite, both production APIs paid
 *   through the same external facilitator, payment by payment alternating (target ≤ 1.3×);
 * - `payments` payments by 16 buyers through the round robin while a process is killed with SIGKILL (and another
 *   started) every `killEvery`: the ledger against the chain (target: 0 lost, 0 double).
 * The load generator runs on the same 2 cores: the ratios are what this machine gives, not a server's.
 */
import { startCluster, startExternalChain } from '../helpers/cluster.js'
import {
  createProductionApi,
  fetchDirect,
  newBuyers,
  portOf,
  startUpstream,
  type ReadyProcess,
} from '../helpers/cluster-load.js'
import { startSvcProcess } from '../helpers/svc-process.js'
import { benchClusterKills } from './cluster-kills.js'
import { percentile, round } from './pool.js'
import { unpaid402s } from './unpaid-402s.js'

export type ClusterBenchOptions = {
  /** Rounds of each measure. @defaultValue 3 */
  rounds?: number
  /** Unpaid requests per side and round. @defaultValue 20000 */
  unpaidRequests?: number
  /** Sequential payments per side and round. @defaultValue 40 */
  paidPayments?: number
  /** Payments of the kill run. @defaultValue 10000 */
  payments?: number
  /** A process is killed (and one started) each time this many more were answered. @defaultValue 2000 */
  killEvery?: number
  /** Only the unpaid 402s (`npm run bench -- --only cluster_402`). @defaultValue false */
  only402?: boolean
  progress?: (line: string) => void
}

const median = (values: number[]) => percentile(values, 50)

export async function benchCluster(options: ClusterBenchOptions = {}) {
  const { rounds = 3, unpaidRequests = 20_000, paidPayments = 40, progress = () => {} } = options
  progress('cluster bench: the external chain (svc up --twin base-sepolia), PostgreSQL and three svc serve')
  const [chain, upstream] = await Promise.all([startExternalChain(), startUpstream()])
  const cluster = await startCluster({
    facilitatorUrl: chain.facilitatorUrl,
    network: chain.network,
    rpcUrl: chain.rpcUrl,
    extraArgs: ['--allow-upstream', '127.0.0.3', '--auto-verify'],
    durable: true,
  })
  const sqlite = await startSvcProcess(['--facilitator-url', chain.facilitatorUrl])
  try {
    await Promise.all([cluster.start(), cluster.start(), cluster.start()])
    const apiOptions = { network: chain.network, usdc: chain.usdc, upstreamUrl: upstream.url }
    const api = await createProductionApi(cluster.processes[0]!, apiOptions)
    const sqliteApi = await createProductionApi(sqlite, apiOptions)

    progress('cluster bench: unpaid 402s, one process against three')
    const unpaid_402 = await unpaid402s({
      host: new URL(api.url).host,
      ports: cluster.processes.map((svc) => portOf(svc)),
      pids: cluster.processes.map((svc) => svc.child.pid!),
      rounds,
      unpaidRequests,
    })
    if (options.only402) return { unpaid_402 }

    progress('cluster bench: paid p50, svc serve on PostgreSQL against svc up on SQLite')
    const paid = { postgres: [] as number[], sqlite: [] as number[], failed: 0 }
    const payers = {
      postgres: { process: cluster.processes[0]! as ReadyProcess, url: api.url },
      sqlite: { process: sqlite as ReadyProcess, url: sqliteApi.url },
    }
    const [buyer] = newBuyers(1, chain.network, chain.usdc, fetchDirect)
    await chain.fund(buyer!.account.address, 5)
    const payOnce = async (side: 'postgres' | 'sqlite') => {
      const url = new URL(payers[side].url)
      url.port = String(portOf(payers[side].process))
      const started = performance.now()
      const response = await buyer!.pay(url.toString())
      await response.arrayBuffer()
      if (response.status !== 200 || !response.headers.get('payment-response')) paid.failed++
      return performance.now() - started
    }
    for (const side of ['postgres', 'sqlite'] as const) for (let i = 0; i < 10; i++) await payOnce(side)
    const p50s = { postgres: [] as number[], sqlite: [] as number[] }
    for (let r = 0; r < rounds; r++) {
      const latencies = { postgres: [] as number[], sqlite: [] as number[] }
      for (let i = 0; i < paidPayments; i++)
        for (const side of (i + r) % 2 === 0 ? (['postgres', 'sqlite'] as const) : (['sqlite', 'postgres'] as const))
          latencies[side].push(await payOnce(side))
      for (const side of ['postgres', 'sqlite'] as const) p50s[side].push(median(latencies[side]))
      paid.postgres.push(...latencies.postgres)
      paid.sqlite.push(...latencies.sqlite)
    }

    const kills = await benchClusterKills({
      cluster,
      chain,
      api,
      payments: options.payments,
      killEvery: options.killEvery,
      progress,
    })

    const ratioPaid = median(p50s.postgres) / median(p50s.sqlite)
    return {
      unpaid_402,
      paid_p50: {
        postgres_ms: round(median(p50s.postgres)),
        sqlite_ms: round(median(p50s.sqlite)),
        postgres_p95_ms: round(percentile(paid.postgres, 95)),
        sqlite_p95_ms: round(percentile(paid.sqlite, 95)),
        rounds_ms: { postgres: p50s.postgres.map((v) => round(v)), sqlite: p50s.sqlite.map((v) => round(v)) },
        failed: paid.failed,
        ratio: round(ratioPaid, 2),
        target_ratio: 1.3,
        pass: ratioPaid <= 1.3 && paid.failed === 0,
      },
      kills,
    }
  } finally {
    await cluster.stop()
    await sqlite.stop()
    await chain.svc.stop()
    upstream.server.close()
  }
}
