import { sql, type Kysely } from 'kysely'
import { toSvcError } from '../../core/errors.js'
import { chainOwnerChannel, chainOwnerLock } from '../db/chain-owner.js'
import type { Notifications } from '../db/notifications.js'
import type { Database } from '../db/tables.js'

export type ChainLeaseOptions = {
  db: Kysely<Database>
  notifications?: Notifications | undefined
  /**
   * Runs once the lease is won (start the chain, publish). A rejection gives the lease back (after `lost`), to be
   * tried again at the next look.
   */
  won(): Promise<void>
  /** Runs when the lease is given back or lost (stop the chain). */
  lost(): Promise<void>
  /** How often a standby tries the lock, and the owner checks its lock's connection. @defaultValue 1_000 */
  everyMs?: number | undefined
  log?: ((message: string) => void) | undefined
}

export type ChainLease = {
  /** True while this process holds the lease. */
  readonly held: boolean
  /** Resolves once the first try is decided: lost, or won and `won` has run. */
  readonly first: Promise<void>
  /** Stops trying; an owner runs `lost` and gives the lease back. */
  close(): Promise<void>
}

/**
 * The team Sandbox's chain-owner lease among `svc serve --sandbox-chain shared` processes: PostgreSQL's session
 * advisory lock {@link chainOwnerLock}, taken with `pg_try_advisory_lock` on a connection of the pool that the owner
 * keeps for as long as it owns the chain. PostgreSQL releases it when that session ends (the owner was killed, or its
 * connection dropped), so a standby's next try (every `everyMs`, and at once on `svc_chain_owner`) wins. The owner
 * runs `select 1` on the connection as often: a connection found broken means the lock may be someone else's, so the
 * chain is stopped (`lost`) rather than run twice.
 */
export function startChainLease(options: ChainLeaseOptions): ChainLease {
  const { db, everyMs = 1_000 } = options
  const log = options.log ?? ((message: string) => console.error(message))
  let held = false
  let closed = false
  let trying: Promise<void> | undefined
  /** The owner's hold: resolves once it is given back. */
  let holding: Promise<void> | undefined
  let wake: (() => void) | undefined
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => resolve(), everyMs)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  /** Holds the lock on `connection` while owning: `won` (then `decided`), a check of the connection every `everyMs`. */
  async function own(connection: Kysely<Database>, decided: () => void): Promise<void> {
    try {
      await options.won().finally(decided)
      while (!closed) {
        await pause()
        if (!closed) await sql`select 1`.execute(connection)
      }
    } catch (error) {
      if (!closed) log(`svc: the Sandbox chain lease is given back: ${toSvcError(error).message}`)
    } finally {
      held = false
      await options.lost().catch((error) => log(`svc: stopping the Sandbox chain failed: ${toSvcError(error).message}`))
      await sql`select pg_advisory_unlock(${chainOwnerLock})`.execute(connection).catch(() => {})
    }
  }

  /** One try: resolves once it is known whether the lock was won and `won` ran (the hold goes on in `holding`). */
  const attempt = () =>
    new Promise<void>((decided) => {
      holding = db
        .connection()
        .execute(async (connection) => {
          const { rows } = await sql<{ won: boolean }>`select pg_try_advisory_lock(${chainOwnerLock}) as won`.execute(
            connection,
          )
          if (!rows[0]?.won || closed) {
            if (rows[0]?.won) await sql`select pg_advisory_unlock(${chainOwnerLock})`.execute(connection)
            return decided()
          }
          held = true
          await own(connection, decided)
        })
        .catch((error) => {
          if (!closed) log(`svc: trying the Sandbox chain lease failed: ${toSvcError(error).message}`)
          decided()
        })
    })

  const tryNow = () => {
    if (closed || held || trying) return trying
    trying = attempt().finally(() => {
      trying = undefined
    })
    return trying
  }
  const subscription = options.notifications?.subscribe(chainOwnerChannel, () => tryNow())
  const timer = setInterval(tryNow, everyMs)
  timer.unref()
  const first = tryNow() ?? Promise.resolve()
  return {
    first,
    get held() {
      return held
    },
    async close() {
      closed = true
      clearInterval(timer)
      wake?.()
      await subscription?.stop()
      await trying
      await holding
    },
  }
}
