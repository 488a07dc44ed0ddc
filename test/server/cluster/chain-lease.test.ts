/**
 * The team Sandbox's chain-owner lease (server/cluster/chain-lease.ts) on a real PostgreSQL: among three processes'
 * leases one holds it; given back, another takes it; the holder's session ended by PostgreSQL (what a kill -9 does),
 * the holder stops its chain (`lost`) and another takes the lease.
 */
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainLease, type ChainLease } from '../../../server/cluster/chain-lease.js'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js'

const runs = postgresAvailable() || Boolean(process.env.CI)
let postgres: TestPostgres
const databases: OpenedDatabase[] = []

beforeAll(async () => {
  if (!runs) return
  postgres = await startPostgres()
  const url = await postgres.createDatabase()
  for (let i = 0; i < 3; i++) databases.push(await openDatabase(url))
}, 60_000)
afterAll(async () => {
  for (const database of databases) await database.close()
  await postgres?.stop()
})

describe.skipIf(!runs)('the chain-owner lease', () => {
  test('one holder at a time; given back or cut off, another takes it within its next look', async () => {
    const events: string[] = []
    const leases: ChainLease[] = databases.map((database, i) =>
      startChainLease({
        connect: () => database.connect!('test lease'),
        notifications: database.notifications,
        everyMs: 100,
        won: async () => void events.push(`won ${i}`),
        lost: async () => void events.push(`lost ${i}`),
        retaken: async () => void events.push(`retaken ${i}`),
        log: () => {},
      }),
    )
    await Promise.all(leases.map((lease) => lease.first))
    const holders = () => leases.flatMap((lease, i) => (lease.held ? [i] : []))
    expect(holders()).toHaveLength(1)
    const first = holders()[0]!
    expect(events).toEqual([`won ${first}`])

    // Given back (a graceful stop): `lost` runs, another process wins.
    await leases[first]!.close()
    await vi.waitFor(() => expect(holders()).toHaveLength(1))
    const second = holders()[0]!
    expect(second).not.toBe(first)
    expect(events).toEqual([`won ${first}`, `lost ${first}`, `won ${second}`])

    // The holder's session ended by the server (its connection dropped: a kill -9 ends it the same way).
    const admin = databases[first === 0 ? 1 : 0]!.db
    const { rows } = await sql<{ ended: boolean }>`select pg_terminate_backend(pid) as ended from pg_stat_activity
      where application_name = 'test lease' and pid in (select pid from pg_locks where locktype = 'advisory' and granted
      and objid = (hashtextextended('svc sandbox chain owner', 0) & 4294967295)::oid)`.execute(admin)
    expect(rows).toEqual([{ ended: true }])
    // The holder lives on: it takes the lease back on a new connection (its chain goes on), or a standby's look came
    // first (the holder's chain is stopped, the standby's started). Never two holders.
    const decided = () => events.slice(3).find((event) => event === `retaken ${second}` || event === `lost ${second}`)
    await vi.waitFor(() => expect(decided()).toBeDefined())
    await vi.waitFor(() => expect(holders()).toHaveLength(1))
    const third = holders()[0]!
    if (decided() === `retaken ${second}`) {
      expect(third).toBe(second)
      expect(events.slice(3)).toEqual([`retaken ${second}`])
    }
    // The standby's `won` may come before the holder's `lost` (the holder notices when it tries to take it back).
    else expect(events.slice(3).sort()).toEqual([`lost ${second}`, `won ${third}`].sort())
    for (const lease of leases) await lease.close()
    expect(holders()).toEqual([])
  })

  test("the holder's session ended (a PostgreSQL restart): it takes the lease back, its chain goes on", async () => {
    const [database, admin] = databases as [OpenedDatabase, OpenedDatabase]
    const events: string[] = []
    const lease = startChainLease({
      connect: () => database.connect!('test lease alone'),
      everyMs: 100,
      won: async () => void events.push('won'),
      lost: async () => void events.push('lost'),
      retaken: async () => void events.push('retaken'),
      log: () => {},
    })
    await lease.first
    expect(events).toEqual(['won'])
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'test lease alone'`.execute(
      admin.db,
    )
    await vi.waitFor(() => expect(events).toEqual(['won', 'retaken']), { timeout: 5_000 })
    expect(lease.held).toBe(true)
    expect(await holderApplications(admin)).toEqual(['test lease alone'])
    await lease.close()
    expect(events).toEqual(['won', 'retaken', 'lost'])
  })

  test("the holder's session ended and another session took the lock first: the holder stops its chain, takes it later", async () => {
    const [database, admin] = databases as [OpenedDatabase, OpenedDatabase]
    const events: string[] = []
    const lease = startChainLease({
      connect: () => database.connect!('test lease handed'),
      everyMs: 100,
      won: async () => void events.push('won'),
      lost: async () => void events.push('lost'),
      retaken: async () => void events.push('retaken'),
      log: () => {},
    })
    await lease.first
    // Another session waits for the lock, so it has it the moment the holder's session ends.
    const other = await admin.connect!('test other owner')
    const waiting = other.query("select pg_advisory_lock(hashtextextended('svc sandbox chain owner', 0))")
    await vi.waitFor(async () => {
      const { rows } = await sql<{ waiting: boolean }>`select exists (select 1 from pg_stat_activity
        where application_name = 'test other owner' and wait_event_type = 'Lock') as waiting`.execute(admin.db)
      expect(rows[0]!.waiting).toBe(true)
    })
    await sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'test lease handed'`.execute(
      admin.db,
    )
    await waiting
    await vi.waitFor(() => expect(events).toEqual(['won', 'lost']), { timeout: 5_000 })
    expect(lease.held).toBe(false)
    // Given back by the other: the lease is won again (a new chain).
    await other.end()
    await vi.waitFor(() => expect(events).toEqual(['won', 'lost', 'won']), { timeout: 5_000 })
    await lease.close()
  })
})

/** The application names of the sessions that hold the chain-owner lock. */
async function holderApplications(database: OpenedDatabase): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`select a.application_name as name from pg_locks l
    join pg_stat_activity a on a.pid = l.pid where l.locktype = 'advisory' and l.granted
    and l.objid = (hashtextextended('svc sandbox chain owner', 0) & 4294967295)::oid`.execute(database.db)
  return rows.map((row) => row.name)
}
