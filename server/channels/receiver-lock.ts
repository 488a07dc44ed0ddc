import { sql, type Kysely } from 'kysely'
import { type Database, sharedByProcesses } from '../db/index.js'

/** Runs `work` as the only claim or settle of a receiver's token in flight, across svc's processes. */
export type ReceiverLock = <T>(key: string, work: () => Promise<T>) => Promise<T>

/** The lock's name of a receiver's token on a network and chain epoch (an advisory lock's key on PostgreSQL). */
export const receiverLockKey = (chainEpoch: string, network: string, receiver: string, token: string) =>
  `svc batch receiver ${chainEpoch} ${network} ${receiver.toLowerCase()} ${token.toLowerCase()}`

/** How many receivers' locks a process holds at once: each pins a connection of the pool (10 by default) meanwhile. */
const heldAtOnce = 2
/** How long a process waits before it tries a lock another process holds again (doubling, up to the most). */
const retryMs = { first: 50, most: 500 }

/**
 * One claim or settle at a time per receiver and token: every `svc serve` process that took a voucher runs a channel
 * manager for the receiver (server/channels/servers.ts), each on its own timer, and two claims of the same
 * vouchers sent at once are one claim and one empty transaction (or a refused one) on the chain. In the process, the
 * work of a key waits for the one before it; on PostgreSQL it then takes a session advisory lock on the key with
 * `pg_try_advisory_lock`, on a connection of the pool held while the work runs (its writes use other connections), and
 * gives it back, as the process owner's `whileGone` does (server/db/process-owner.ts). A lock another process holds is
 * tried again a little later, holding nothing meanwhile; at most {@link heldAtOnce} are held at once, so the work
 * always finds a connection of the pool free. A connection lost meanwhile ends its session and so the lock: the work
 * goes on, and what a second process then records twice the unique index of `batch_transactions` refuses (migration
 * 2026_12_07_01_00_00_channel_transactions_once).
 */
export function createReceiverLock(db: Kysely<Database>): ReceiverLock {
  const postgres = sharedByProcesses(db)
  const tails = new Map<string, Promise<unknown>>()
  let held = 0
  const waiting: (() => void)[] = []
  const takeSlot = async () => {
    while (held >= heldAtOnce) await new Promise<void>((resolve) => waiting.push(resolve))
    held++
  }
  const freeSlot = () => {
    held--
    waiting.shift()?.()
  }

  /** The work's answer once it ran with the key's lock; undefined when another process holds it. */
  const withLock = <T>(key: string, work: () => Promise<T>) =>
    db.connection().execute(async (connection) => {
      const { rows } = await sql<{
        won: boolean
      }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as won`.execute(connection)
      if (!rows[0]?.won) return undefined
      try {
        return { answer: await work() }
      } finally {
        // A connection that broke has ended its session, and the lock with it.
        await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(connection).catch(() => {})
      }
    })

  async function acrossProcesses<T>(key: string, work: () => Promise<T>): Promise<T> {
    if (!postgres) return work()
    for (let pause = retryMs.first; ; pause = Math.min(2 * pause, retryMs.most)) {
      await takeSlot()
      try {
        const ran = await withLock(key, work)
        if (ran) return ran.answer
      } finally {
        freeSlot()
      }
      await new Promise((resolve) => setTimeout(resolve, pause * (0.5 + Math.random())))
    }
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
