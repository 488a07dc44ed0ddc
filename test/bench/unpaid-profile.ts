/**
 * Where a process's CPU goes per unpaid 402: one `svc serve` on PostgreSQL (the cluster bench's setup) against one
 * `svc up` on SQLite, the same production API, the same load: undici's pool (keep-alive) and the raw generator
 * (test/bench/raw-load.ts) at pipelining depths DEPTHS (default 1,4,16; given, undici is left out). Prints svc's CPU
 * per 402, the load generator's, and PostgreSQL's transactions over the run; with PROFILE_DIR, each process's CPU
 * profile summed up by module. Run: `node --import tsx test/bench/unpaid-profile.ts` (REQUESTS=20000 a run).
 */
import { readdirSync } from 'node:fs'
import postgresClient from 'pg'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Pool } from 'undici'
import { startCluster, startExternalChain } from '../helpers/cluster.js'
import { createProductionApi, portOf, startUpstream } from '../helpers/cluster-load.js'
import { startSvcProcess } from '../helpers/svc-process.js'
import { summariseCpuProfile } from './cpu-profile.js'
import { runPool } from './pool.js'
import { rawLoad } from './raw-load.js'
import { treeCpuMs } from './processes.js'

const requests = Number(process.env.REQUESTS ?? 20_000)
const profileDir = process.env.PROFILE_DIR
const profiled = (side: string) =>
  profileDir
    ? {
        ...process.env,
        NODE_OPTIONS: `--import ${fileURLToPath(new URL('./cpu-profile-preload.mjs', import.meta.url))}`,
        PROFILE_TO: join(profileDir, side),
      }
    : process.env

const [chain, upstream] = await Promise.all([startExternalChain(), startUpstream()])
const cluster = await startCluster({
  facilitatorUrl: chain.facilitatorUrl,
  network: chain.network,
  rpcUrl: chain.rpcUrl,
  extraArgs: ['--allow-upstream', '127.0.0.3', '--auto-verify'],
  durable: true,
})
const saved = process.env.NODE_OPTIONS
Object.assign(process.env, profiled('postgres'))
const pg = await cluster.start()
Object.assign(process.env, profiled('sqlite'))
const sqlite = await startSvcProcess(['--facilitator-url', chain.facilitatorUrl])
if (saved === undefined) delete process.env.NODE_OPTIONS
else process.env.NODE_OPTIONS = saved
const results: Record<string, unknown> = {}
try {
  const apiOptions = { network: chain.network, usdc: chain.usdc, upstreamUrl: upstream.url }
  for (const [side, svc] of [
    ['postgres', pg],
    ['sqlite', sqlite],
  ] as const) {
    const api = await createProductionApi(svc, apiOptions)
    const host = new URL(api.url).host
    const pool = new Pool(`http://127.0.0.1:${portOf(svc)}`, { connections: 32, pipelining: 1 })
    const probe = async () => {
      const response = await pool.request({ method: 'GET', path: '/forecast', headers: { host } })
      await response.body.dump()
      return response.statusCode === 402
    }
    await runPool(Array.from({ length: 2_000 }), 32, probe)
    const commits = async () => {
      if (side !== 'postgres') return 0
      const client = new postgresClient.Client({ connectionString: cluster.adminUrl })
      await client.connect()
      const { rows } = await client.query("select xact_commit from pg_stat_database where datname = 'svc'")
      await client.end()
      return Number(rows[0].xact_commit)
    }
    const measure = async (name: string, run: () => Promise<{ wallMs: number; bad: number }>) => {
      const commits0 = await commits()
      const svc0 = treeCpuMs(svc.child.pid)
      const own0 = process.cpuUsage()
      const { wallMs, bad } = await run()
      const own = process.cpuUsage(own0)
      results[`${side} ${name}`] = {
        rps: Math.round((requests / wallMs) * 1000),
        svc_cpu_us_per_402: Math.round(((treeCpuMs(svc.child.pid) - svc0) * 1000) / requests),
        load_generator_cpu_us_per_402: Math.round((own.user + own.system) / requests),
        not_402: bad,
        // The statistics lag by up to PostgreSQL's stats interval: an upper bound over the run, the reaper included.
        database_transactions: (await commits()) - commits0,
      }
    }
    if (!process.env.DEPTHS)
      await measure('undici', async () => {
        const run = await runPool(Array.from({ length: requests }), 32, probe)
        return { wallMs: run.wallMs, bad: run.results.filter((ok) => !ok).length }
      })
    for (const depth of (process.env.DEPTHS ?? '1,4,16').split(',').map(Number))
      await measure(`raw depth ${depth}`, async () => {
        const run = await rawLoad({ ports: [portOf(svc)], host, path: '/forecast', requests, depth })
        return { wallMs: run.wallMs, bad: requests - (run.statuses[402] ?? 0) }
      })
    await pool.close()
  }
} finally {
  await cluster.stop()
  await sqlite.stop()
  await chain.svc.stop()
  upstream.server.close()
}
if (profileDir)
  for (const side of ['postgres', 'sqlite']) {
    const dir = join(profileDir, side)
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
    if (file) results[`${side}_profile`] = summariseCpuProfile(join(dir, file), { top: 15 })
  }
console.log(JSON.stringify(results, null, 1))
process.exit(0)
