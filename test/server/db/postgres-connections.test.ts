/**
 * Issue 35 item C, piece by piece, on a real PostgreSQL: a connection of the pool checked out and idle whose session
 * ends does not take the process down (no unhandled 'error' event) and the pool serves on; the liveness lock
 * (server/db/process-owner.ts) is taken again after its session ends; after `pg_ctl restart -m fast` queries answer,
 * notifications flow again and the lock is held again; and what a query gets while the server is down or restarting
 * is said as "the database is unreachable" (a 503 with Retry-After, server/db/database-errors.ts), not a 500.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createErrorHandler } from '../../../core/http.js'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import { databaseUnavailable, databaseUnreachable, quietWhileUnreachable } from '../../../server/db/database-errors.js'
import { notify } from '../../../server/db/notifications.js'
import { processOwnerOf } from '../../../server/db/process-owner.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js'

const runs = postgresAvailable() || Boolean(process.env.CI)
let postgres: TestPostgres
let url: string
const opened: OpenedDatabase[] = []

beforeAll(async () => {
  if (!runs) return
  postgres = await startPostgres()
  url = await postgres.createDatabase()
}, 60_000)
afterAll(async () => {
  for (const database of opened) await database.close()
  await postgres?.stop()
})

async function open(log: (line: string) => void = () => {}) {
  const database = await openDatabase(url, { log })
  opened.push(database)
  return database
}

/** The errors node reports as uncaught while `work` runs (an unhandled 'error' event is one). */
async function uncaughtDuring(work: () => Promise<void>): Promise<Error[]> {
  const caught: Error[] = []
  const listener = (error: Error) => void caught.push(error)
  // vitest's own listener would fail the run: the test reports what it saw instead.
  const others = process.listeners('uncaughtException')
  process.removeAllListeners('uncaughtException')
  process.on('uncaughtException', listener)
  try {
    await work()
  } finally {
    process.off('uncaughtException', listener)
    for (const other of others) process.on('uncaughtException', other)
  }
  return caught
}

/** Whether a session holds the advisory lock of `id` (process-owner.ts's key: hashtextextended(id, 0)). */
async function lockHeld(database: OpenedDatabase, id: string): Promise<boolean> {
  const { rows } = await sql<{ held: boolean }>`select exists (select 1 from pg_locks where locktype = 'advisory'
    and granted and objid = (hashtextextended(${id}, 0) & 4294967295)::oid) as held`.execute(database.db)
  return rows[0]!.held
}

describe.skipIf(!runs)('PostgreSQL connections that break', () => {
  test('a pool connection checked out and idle whose session ends: no unhandled error, the pool serves on', async () => {
    const database = await open()
    const admin = await open()
    let failed: unknown
    const uncaught = await uncaughtDuring(async () => {
      await database.db.connection().execute(async (connection) => {
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(connection)
        await sql`select pg_terminate_backend(${rows[0]!.pid})`.execute(admin.db)
        // Idle meanwhile (as a lock held while other work runs): the server's 57P01 arrives with no query under way.
        await new Promise((resolve) => setTimeout(resolve, 300))
        failed = await sql`select 1`.execute(connection).then(
          () => undefined,
          (error: unknown) => error,
        )
      })
    })
    expect(uncaught).toEqual([])
    expect(databaseUnreachable(failed)).toBe(true)
    const { rows } = await sql<{ one: number }>`select 1 as one`.execute(database.db)
    expect(rows).toEqual([{ one: 1 }])
  })

  test("the liveness lock's session ended: the lock is taken again, and the process is not gone to the others", async () => {
    const logged: string[] = []
    const database = await open((line) => logged.push(line))
    const other = await open()
    const { id } = processOwnerOf(database.db)
    expect(await lockHeld(other, id)).toBe(true)
    await sql`select pg_terminate_backend(pid) from pg_locks where locktype = 'advisory' and granted
      and objid = (hashtextextended(${id}, 0) & 4294967295)::oid`.execute(other.db)
    // pg_terminate_backend only signals the session: the lock is still seen held until it has ended. The process's
    // line says it saw the break; then the lock must be held again.
    await vi.waitFor(
      () =>
        expect(logged).toEqual([
          expect.stringMatching(/^svc: the database connection that says this process is alive broke/),
        ]),
      { timeout: 5_000, interval: 50 },
    )
    await vi.waitFor(async () => expect(await lockHeld(other, id)).toBe(true), { timeout: 5_000, interval: 50 })
    expect(await processOwnerOf(other.db).isGone(id)).toBe(false)
    expect(logged).toHaveLength(1)
  })

  test('pg_ctl restart -m fast: queries answer again, notifications flow again, the liveness lock is held again', async () => {
    const database = await open()
    const { id } = processOwnerOf(database.db)
    const seen: string[] = []
    const subscription = database.notifications!.subscribe('svc_restart', {
      message: (payload) => seen.push(payload),
      reset: () => seen.push('reset'),
    })
    expect(await subscription.ready).toBe(true)
    // A connection of the pool checked out and idle across the restart.
    const uncaught = await uncaughtDuring(async () => {
      const held = database.db.connection().execute(async () => {
        await new Promise((resolve) => setTimeout(resolve, 2_000))
      })
      await postgres.restart()
      await held
      await vi.waitFor(() => expect(seen).toContain('reset'), { timeout: 15_000, interval: 100 })
    })
    expect(uncaught).toEqual([])
    await notify(database.db, 'svc_restart', 'after')
    await vi.waitFor(() => expect(seen).toContain('after'), { timeout: 5_000 })
    await vi.waitFor(async () => expect(await lockHeld(database, id)).toBe(true), { timeout: 10_000, interval: 100 })
  })

  test('while the server is down a query fails as "unreachable": a 503 with Retry-After, never a 500', async () => {
    const database = await open()
    await postgres.shutdown()
    let error: unknown
    try {
      error = await sql`select 1`.execute(database.db).then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
    } finally {
      await postgres.start()
    }
    expect(databaseUnreachable(error)).toBe(true)
    expect(databaseUnavailable(error)).toMatchObject({ status: 503, retryAfterSeconds: 2 })
    // What the server's error handler answers for it (server/app.ts translates with databaseUnavailable).
    const answer: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} }
    const res = {
      headersSent: false,
      set: (name: string, value: string) => void (answer.headers[name] = value),
      status: (status: number) => ((answer.status = status), res),
      json: (body: unknown) => void (answer.body = body),
    }
    createErrorHandler({ translate: databaseUnavailable, log: () => {} })(error, {} as never, res as never, () => {})
    expect(answer).toEqual({
      status: 503,
      headers: { 'retry-after': '2' },
      body: {
        error: 'the database is unavailable (svc lost its connection, or the server is restarting): retry shortly',
      },
    })
    // Not a database's fault: untouched.
    expect(databaseUnreachable(new Error('duplicate key value violates unique constraint'))).toBe(false)
    expect(databaseUnreachable(Object.assign(new Error('deadlock detected'), { code: '40P01' }))).toBe(false)
    expect(databaseUnreachable(Object.assign(new Error('x'), { code: '57P01' }))).toBe(true)
    // A refused connection is the database's only when a query of the database threw it (not the chain's RPC's).
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), { code: 'ECONNREFUSED' })
    expect(databaseUnreachable(refused)).toBe(true)
    expect(databaseUnavailable(refused)).toBeUndefined()
    expect(databaseUnavailable(new TypeError('fetch failed', { cause: refused }))).toBeUndefined()
    // Background work that retries every second says a database out of reach once, not at every try.
    const lines: string[] = []
    const quiet = quietWhileUnreachable((line) => lines.push(line))
    for (const message of ['a', 'b']) quiet.failed(error, message)
    quiet.ok()
    quiet.failed(error, 'c')
    quiet.failed(new Error('a bug'), 'd')
    const once = ' (said once until the database is back)'
    expect(lines).toEqual([`a${once}`, `c${once}`, 'd'])
    await vi.waitFor(async () => expect((await sql`select 1 as one`.execute(database.db)).rows).toEqual([{ one: 1 }]))
  })
})
