import { sql, type Kysely } from 'kysely'
import { dialectOf } from '../db/dialect.js'
import type { Database } from '../db/tables.js'

/** Runs `work` as the only claim or settle of a receiver's token in flight, across svc's processes. */
export type ReceiverLock = <T>(key: string, work: () => Promise<T>) => Promise<T>

/** The lock's name of a receiver's token on a network and chain epoch (an advisory lock's key on PostgreSQL). */
export const receiverLockKey = (chainEpoch: string, network: string, receiver: string, token: string) =>
  `svc batch receiver ${chainEpoch} ${network} ${receiver.toLowerCase()} ${token.toLowerCase()}`

/** PostgreSQL's lock_not_available: the pool's lock_timeout (server/db/postgres-database.ts) passed while waiting. */
const lockTimedOut = (error: unknown) => (error as { code?: string }).code === '55P03'

/**
 * One claim or settle at a time per receiver and token: every `svc serve` process that took a voucher runs a channel
 * manager for the receiver (server/gateway/batch-servers.ts), each on its own timer, and two claims of the same
 * vouchers sent at once are one claim and one empty transaction (or a refused one) on the chain. In the process, the
 * work of a key waits for the one before it; on PostgreSQL it then holds a session advisory lock on the key, on a
 * connection of the pool held while the work runs (its writes use other connections), and gives it back, as the
 * process owner's `whileGone` does (server/db/process-owner.ts). A connection lost meanwhile ends its session and
 * so the lock: the work goes on, and what a second process then records twice the unique index of
 * `batch_transactions` refuses (migration 2026_12_07_00_00_00_channel_transactions_once).
 */
export function createReceiverLock(db: Kysely<Database>): ReceiverLock {
  const postgres = dialectOf(db) === 'postgres'
  const tails = new Map<string, Promise<unknown>>()

  async function acrossProcesses<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (!postgres) return work()
    return db.connection().execute(async (connection) => {
      for (;;) {
        try {
          await sql`select pg_advisory_lock(hashtextextended(${key}, 0))`.execute(connection)
          break
        } catch (error) {
          // Another process's claim outlasted the lock_timeout: it still runs, so this one waits on.
          if (!lockTimedOut(error)) throw error
        }
      }
      try {
        return await work()
      } finally {
        // A connection that broke has ended its session, and the lock with it.
        await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(connection).catch(() => {})
      }
    })
  }

  return (key, work) => {
    const run = (tails.get(key) ?? Promise.resolve()).then(() => acrossProcesses(key, work))
    const tail = run.then(
      () => {},
      () => {},
    )
    tails.set(key, tail)
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key)
    })
    return run
  }
}
