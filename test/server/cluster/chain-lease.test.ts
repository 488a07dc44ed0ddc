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
    await vi.waitFor(() => expect(events.filter((event) => event.startsWith('won'))).toHaveLength(3))
    expect(events.slice(3)).toEqual([`lost ${second}`, expect.stringMatching(/^won [0-2]$/)])
    await vi.waitFor(() => expect(holders()).toHaveLength(1))
    for (const lease of leases) await lease.close()
    expect(holders()).toEqual([])
  })
})
