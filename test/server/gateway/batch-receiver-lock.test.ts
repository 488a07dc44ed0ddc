/**
 * The lock a receiver's claims and settles take (server/channels/receiver-lock.ts), on PostgreSQL between two
 * processes (two opened databases, each with its pool and lock): the work of one key runs once at a time across
 * both, the work of different keys at the same time; a pool of 3 connections is enough for 6 keys' work, each of
 * which writes as it runs.
 */
import { sql } from 'kysely'
import { describe, expect, test } from 'vitest'
import { openDatabase } from '../../../server/db/database.js'
import { createReceiverLock, receiverLockKey } from '../../../server/channels/receiver-lock.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.runIf(testDialects().includes('postgres'))('postgres, two processes', () => {
  const databases = testDatabases('postgres')

  test("one key's work runs once at a time across processes, other keys' alongside, with a small pool", async () => {
    const url = await databases.url()
    const [one, two] = [await openDatabase(url, { poolSize: 3 }), await openDatabase(url, { poolSize: 3 })]
    try {
      const locks = [createReceiverLock(one.db), createReceiverLock(two.db)]
      const dbs = [one.db, two.db]
      const running = new Map<string, number>()
      const most = new Map<string, number>()
      let together = 0
      let mostTogether = 0
      const keys = Array.from({ length: 6 }, (_, i) => receiverLockKey('', 'eip155:8453', `0x${i}`, '0xUSDC'))
      const work = (key: string, index: number) => async () => {
        running.set(key, (running.get(key) ?? 0) + 1)
        most.set(key, Math.max(most.get(key) ?? 0, running.get(key)!))
        mostTogether = Math.max(mostTogether, ++together)
        // The work writes, on another connection of its process's pool.
        await sql`select pg_sleep(0.02)`.execute(dbs[index % 2]!)
        await sleep(10)
        together--
        running.set(key, running.get(key)! - 1)
        return key
      }
      const runs = keys.flatMap((key) =>
        Array.from({ length: 6 }, (_, index) => locks[index % 2]!(key, work(key, index))),
      )
      expect(new Set(await Promise.all(runs))).toEqual(new Set(keys))
      expect([...most.values()]).toEqual(keys.map(() => 1))
      expect(mostTogether).toBeGreaterThan(1)
      // Every lock given back.
      const { rows } = await sql<{
        n: number
      }>`select count(*)::int as n from pg_locks where locktype = 'advisory'`.execute(one.db)
      expect(rows[0]?.n).toBe(1 * 2) // the two processes' liveness locks
    } finally {
      await one.close()
      await two.close()
    }
  }, 60_000)
})
