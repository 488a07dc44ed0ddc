import { execFile, execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, inject } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../server/db/database.js'
import type { DialectName as Dialect } from '../../server/db/dialect.js'
import { holdPort } from './processes.js'

/** The machine's Debian PostgreSQL (`apt-get install postgresql-15`; .ci/run installs it where it is missing). */
const bin = process.env.SVC_TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin'

export type TestPostgres = {
  /** The server's URL without a database name. */
  url: string
  /** Creates a database (empty, or a copy of `template`) and answers its URL. */
  createDatabase(options?: { name?: string; template?: string }): Promise<string>
  /** Restarts the server as an operator does (`pg_ctl restart -m fast`: every session is ended), waiting for it. */
  restart(): Promise<void>
  /** Stops the server as an operator does (`pg_ctl stop -m fast`), keeping its data for {@link start}. */
  shutdown(): Promise<void>
  /** Starts the server {@link shutdown} stopped, on the same port, waiting for it. */
  start(): Promise<void>
  /** Stops the server (immediately: its data is thrown away) and removes its directory. */
  stop(): Promise<void>
}

/** True when the machine has the PostgreSQL binaries this helper starts. */
export const postgresAvailable = () => existsSync(join(bin, 'initdb'))

/**
 * Starts a throwaway PostgreSQL server for one test file: initdb into a fresh directory (~1.5 s) and pg_ctl start on a
 * free port of 127.0.0.1 (~0.3 s), with fsync off (nothing of it outlives the file) unless `durable` (a benchmark:
 * PostgreSQL's defaults, every commit flushed). The server runs as the `postgres`
 * user, since PostgreSQL refuses to run as root; the cluster's superuser is `svc`, trusted on loopback. Its databases
 * sort text as English does (ICU's en-US, as a cluster initialised on a server often does), not by bytes as SQLite:
 * svc must not depend on the cluster's locale.
 */
export async function startPostgres(options: { durable?: boolean } = {}): Promise<TestPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'svc-pg-'))
  const dir = join(root, 'data')
  const asPostgres = process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--'] : []
  const run = (file: string, args: string[]) => {
    const [command, ...rest] = [...asPostgres, file, ...args]
    execFileSync(command!, rest, { stdio: 'pipe' })
  }
  if (asPostgres.length > 0) execFileSync('chown', ['postgres:postgres', root])
  run(join(bin, 'initdb'), [
    '-D',
    dir,
    '-U',
    'svc',
    '--auth=trust',
    '--no-sync',
    '--locale=C.UTF-8',
    '--locale-provider=icu',
    '--icu-locale=en-US',
  ])
  const { port, server } = await holdPort()
  await new Promise((done) => server.close(done))
  /** pg_ctl, asynchronously (the test's buyers and servers run meanwhile in this process). */
  const pgCtl = (args: string[]) => {
    const [command, ...rest] = [...asPostgres, join(bin, 'pg_ctl'), '-D', dir, '-l', join(root, 'log'), ...args]
    return new Promise<void>((resolve, reject) =>
      execFile(command!, rest, (error) => (error ? reject(error) : resolve())),
    )
  }
  const startArgs = [
    '-o',
    `-p ${port} -k ${root} -c listen_addresses=127.0.0.1${options.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off'}`,
    '-w',
    'start',
  ]
  run(join(bin, 'pg_ctl'), ['-D', dir, '-l', join(root, 'log'), ...startArgs])
  const url = `postgres://svc@127.0.0.1:${port}`
  return {
    url,
    createDatabase: ({ name, template } = {}) => createDatabaseOn(url, name, template),
    restart: () => pgCtl(['-m', 'fast', '-w', 'restart']),
    shutdown: () => pgCtl(['-m', 'fast', '-w', 'stop']),
    start: () => pgCtl(startArgs),
    async stop() {
      try {
        run(join(bin, 'pg_ctl'), ['-D', dir, '-m', 'immediate', 'stop'])
      } finally {
        rmSync(root, { recursive: true, force: true })
      }
    },
  }
}

/**
 * The dialects a db test runs on: SQLite, and PostgreSQL where its binaries are (in CI they must be: .ci/run installs
 * them). `SVC_TEST_DATABASE=sqlite` or `=postgres` runs one.
 */
export function testDialects(): Dialect[] {
  const only = process.env.SVC_TEST_DATABASE
  if (only === 'sqlite' || only === 'postgres') return [only]
  if (postgresAvailable()) return ['sqlite', 'postgres']
  if (process.env.CI) throw new Error(`PostgreSQL is not installed at ${bin}: .ci/run installs postgresql-15`)
  return ['sqlite']
}

/**
 * Fresh databases of one dialect for a test file: on PostgreSQL a server started before the file's tests (stopped
 * after them) and a database per {@link open}, copied from one svc migrated once (a copy takes ~50 ms, migrating
 * ~1 s); on SQLite a file in a temporary dir (so the gateway's store takes its fast path, as in svc). `url({ blank:
 * true })` is an empty database's.
 */
export function testDatabases(dialect: Dialect): {
  open(): Promise<OpenedDatabase>
  url(options?: { blank?: boolean }): Promise<string>
} {
  let server: TestPostgres | undefined
  let template: Promise<string> | undefined
  const dirs: string[] = []
  beforeAll(async () => {
    if (dialect === 'postgres') server = await startPostgres()
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })
  const migratedTemplate = async () => {
    const name = 't_migrated'
    const migrated = await openDatabase(await server!.createDatabase({ name }))
    await migrated.close()
    return name
  }
  const url = async ({ blank = false } = {}) => {
    if (dialect === 'postgres') {
      if (blank) return server!.createDatabase()
      template ??= migratedTemplate()
      return server!.createDatabase({ template: await template })
    }
    const dir = mkdtempSync(join(tmpdir(), 'svc-db-'))
    dirs.push(dir)
    return join(dir, 'svc.sqlite')
  }
  return { url, open: async () => openDatabase(await url()) }
}

let suiteTemplate: Promise<string> | undefined

/**
 * With SVC_TEST_DATABASE=postgres (test/global-setup.ts starts one server for the run), a fresh migrated database on
 * it for a server a test starts (test/helpers/control.ts); otherwise undefined: the server's SQLite file.
 */
export async function suiteDatabaseUrl(): Promise<string | undefined> {
  const base = process.env.SVC_TEST_DATABASE === 'postgres' ? inject('postgresUrl') : undefined
  if (!base) return undefined
  // A template per worker: copying one needs it to have no connections, and each worker migrates its own once.
  suiteTemplate ??= (async () => {
    const name = `t_migrated_${process.pid}`
    await (await openDatabase(await createDatabaseOn(base, name))).close()
    return name
  })()
  return createDatabaseOn(base, undefined, await suiteTemplate)
}

/** Creates a database (empty, or a copy of `template`) on the server at `base` and answers its URL. */
async function createDatabaseOn(
  base: string,
  name = `t_${randomBytes(6).toString('hex')}`,
  template?: string,
): Promise<string> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: `${base}/postgres` })
  await client.connect()
  try {
    await client.query(`create database "${name}"${template ? ` template "${template}"` : ''}`)
  } finally {
    await client.end()
  }
  return `${base}/${name}`
}
