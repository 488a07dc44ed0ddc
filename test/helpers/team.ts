/**
 * A team's shared Sandbox (issue 27) as docs/postgres.md's "Team Sandbox" starts it: PostgreSQL, the keys and the
 * database (database.sh, team-database.sh), `svc serve --sandbox-chain shared` processes (team.sh, each on its own
 * port, data dir and advertise URL), and a load balancer in front of them (a real port: what `SVC_BASE_URL` names).
 * The docs' example values are replaced with the test's: the platform domain is `localhost` (so `*.localhost`
 * reaches the balancer without DNS), plain HTTP on the balancer's port, the upstream range 127.0.0.3.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBalancerProxy, type BalancerProxy } from './balancer-proxy.js'
import { readmeBlock } from './cluster.js'
import { startPostgres, type TestPostgres } from './postgres.js'
import { holdPort } from './processes.js'
import { startServeScript, type ServeProcess } from './serve-process.js'

export type Team = {
  postgres: TestPostgres
  /** The database as PostgreSQL's superuser (the test's own reads). */
  adminUrl: string
  balancer: BalancerProxy
  /** {sandbox_base_url} through the balancer: the team's `SVC_BASE_URL`. */
  sandboxUrl: string
  /** The admin token database.sh made. */
  adminToken: string
  /** Every process started, in order (a killed one stays). */
  processes: ServeProcess[]
  start(): Promise<ServeProcess>
  /** Runs a docs block with the test's values; its stdout. */
  run(file: string): string
  stop(): Promise<void>
}

export type TeamOptions = {
  /** A change to team.sh after the test's values (a benchmark's flags). */
  edit?: ((code: string) => string) | undefined
}

export async function startTeam(options: TeamOptions = {}): Promise<Team> {
  const { edit = (code: string) => code } = options
  const dir = mkdtempSync(join(tmpdir(), 'svc-team-'))
  const postgres = await startPostgres()
  const server = postgres.url.replace(/^postgres:\/\/svc@/, '')
  const processes: ServeProcess[] = []
  const balancer = await startBalancerProxy(processes)
  const local = (code: string) =>
    code
      .replaceAll('/etc/svc', join(dir, 'etc'))
      .replaceAll('/var/lib/svc', join(dir, 'data'))
      .replaceAll('postgres://postgres@db.example.com/', `postgres://svc@${server}/`)
      .replaceAll('@db.example.com:5432/', `@${server}/`)
      .replaceAll(
        '--platform-domain team.example.com --public-scheme https',
        `--platform-domain localhost --public-port ${balancer.port}`,
      )
      .replaceAll('10.20.0.0/16', '127.0.0.3/32')
  const run = (file: string) =>
    execFileSync('bash', ['-euo', 'pipefail', '-c', local(readmeBlock(file))], { encoding: 'utf8' })
  run('database.sh')
  run('team-database.sh')
  const adminToken = readFileSync(join(dir, 'etc', 'admin.token'), 'utf8').trim()
  const start = async () => {
    // Its own port, known before it starts: the advertise URL names it.
    const held = await holdPort()
    await new Promise((done) => held.server.close(done))
    const script = edit(local(readmeBlock('team.sh')).replaceAll('4031', String(held.port)))
    const svc = await startServeScript(script)
    processes.push(svc)
    return svc
  }
  return {
    postgres,
    adminUrl: `${postgres.url}/svc_team`,
    balancer,
    sandboxUrl: `http://sandbox.localhost:${balancer.port}`,
    adminToken,
    processes,
    start,
    run,
    async stop() {
      await balancer.stop()
      await Promise.all(processes.map((svc) => svc.stop()))
      await postgres.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
