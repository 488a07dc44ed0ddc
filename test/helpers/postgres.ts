import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { holdPort } from './processes.js'

/** The machine's Debian PostgreSQL (`apt-get install postgresql-15`; .ci/run installs it where it is missing). */
const bin = process.env.SVC_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin'

export type TestPostgres = {
  /** The server's URL without a database name. */
  url: string
  /** Creates an empty database and answers its URL. */
  createDatabase(name?: string): Promise<string>
  /** Stops the server (immediately: its data is thrown away) and removes its directory. */
  stop(): Promise<void>
}

/** True when the machine has the PostgreSQL binaries this helper starts. */
export const postgresAvailable = () => existsSync(join(bin, 'initdb'))

/**
 * Starts a throwaway PostgreSQL server for one test file: initdb into a fresh directory (~1.5 s) and pg_ctl start on a
 * free port of 127.0.0.1 (~0.3 s), with fsync off (nothing of it outlives the file). The server runs as the `postgres`
 * user, since PostgreSQL refuses to run as root; the cluster's superuser is `svc`, trusted on loopback.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'svc-pg-'))
  const dir = join(root, 'data')
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []
  const run = (file: string, args: string[]) => {
    const [command, ...rest] = [...asPostgres, file, ...args]
    execFileSync(command!, rest, { stdio: 'pipe' })
  }
  if (asPostgres.length > 0) execFileSync('chown', ['postgres:postgres', root])
  run(join(bin, 'initdb'), ['-D', dir, '-U', 'svc', '--auth=trust', '--no-sync', '--locale=C.UTF-8'])
  const { port, server } = await holdPort()
  await new Promise((done) => server.close(done))
  run(join(bin, 'pg_ctl'), [
    '-D',
    dir,
    '-l',
    join(root, 'log'),
    '-o',
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`,
    '-w',
    'start',
  ])
  const url = `postgres://svc@127.0.0.1:${port}`
  const { default: pg } = await import('pg')
  return {
    url,
    async createDatabase(name = `t_${randomBytes(6).toString('hex')}`) {
      const client = new pg.Client({ connectionString: `${url}/postgres` })
      await client.connect()
      try {
        await client.query(`create database "${name}"`)
      } finally {
        await client.end()
      }
      return `${url}/${name}`
    },
    async stop() {
      try {
        run(join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    },
  }
}

/** The dialects a db test runs on: SQLite always, PostgreSQL where its binaries are (`SVC_TEST_DATABASE=sqlite` skips it). */
export const testDialects = (): ('sqlite' | 'postgres')[] =>
  process.env.SVC_TEST_DATABASE === 'sqlite' || !postgresAvailable() ? ['sqlite'] : ['sqlite', 'postgres']
