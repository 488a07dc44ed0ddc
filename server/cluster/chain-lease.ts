import type Pg from 'pg'
import { toSvcError } from '../../core/errors.js'
import {
  chainOwnerChannel,
  chainOwnerLockName,
  databaseUnreachable,
  type Notifications,
  quietWhileUnreachable,
} from '../db/index.js'

export type ChainLeaseOptions = {
  /** Opens the lease's own connection (server/db/opened-database.ts `connect`). */
  connect: () => Promise<Pg.Client>
  notifications?: Notifications | undefined
  /**
   * Runs once the lease is won (start the chain, publish). A rejection gives the lease back (after `lost`), to be
   * tried again at the next look.
   */
  won(): Promise<void>
  /** Runs when the lease is given back or lost (stop the chain). */
  lost(): Promise<void>
  /**
   * Runs when the owner took the lease back on a new connection after its connection broke (a PostgreSQL restart):
   * the chain goes on (publish it again). A rejection gives the lease back, as a lost one.
   */
  retaken?(): Promise<void>
  /**
   * How long an owner whose connection broke tries to take the lease back (every `everyMs / 4`) before it stops its
   * chain; a standby whose own connection broke waits `everyMs * 3` before trying, so that the owner, whose session
   * ended with its own, takes it back first. @defaultValue 60_000
   */
  retakeMs?: number | undefined
  /** How often a standby tries the lock, and the owner checks its connection. @defaultValue 1_000 */
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

const tryLock = 'select pg_try_advisory_lock(hashtextextended($1, 0)) as won'
const unlock = 'select pg_advisory_unlock(hashtextextended($1, 0))'

/**
 * The team Sandbox's chain-owner lease among `svc serve --sandbox-chain shared` processes: PostgreSQL's session
 * advisory lock on {@link chainOwnerLockName}, tried with `pg_try_advisory_lock` on a connection of the lease's own
 * (beside the pool and the liveness connection) every `everyMs`, and at once on `svc_chain_owner`. The owner keeps
 * it on that connection for as long as it owns the chain; PostgreSQL releases it when the session ends (the owner
 * was killed, or its connection dropped), so a standby's next try wins. The owner runs `select 1` on the connection
 * as often. A connection found broken (a PostgreSQL restart, a dropped connection) lost the lock with its session: the
 * owner tries to take it back on a new connection (`retaken`: its chain goes on, on the same epoch), and stops its
 * chain (`lost`) when another process took it first or the database stays out of reach, rather than run it twice.
 */
export function startChainLease(options: ChainLeaseOptions): ChainLease {
  const { everyMs = 1_000, retakeMs = 60_000 } = options
  const log = options.log ?? ((message: string) => console.error(message))
  const failures = quietWhileUnreachable(log)
  let client: Pg.Client | undefined
  let broken = false
  /** A standby tries no earlier than this (ms since the epoch): after its connection broke, the owner goes first. */
  let holdOffUntil = 0
  let held = false
  let closed = false
  let trying: Promise<void> | undefined
  /** The owner's hold: resolves once it is given back. */
  let holding: Promise<void> | undefined
  let wake: (() => void) | undefined
  const pause = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, everyMs)
      wake = () => {
        clearTimeout(timer)
        resolve()
      }
    })

  /** The lease's connection, opened again after it broke. */
  async function connection(): Promise<Pg.Client> {
    if (client && !broken) return client
    const wasBroken = broken
    const next = await options.connect()
    next.on('error', (error) => {
      if (next !== client || broken) return
      broken = true
      if (!closed) log(`svc: the connection of the Sandbox chain lease broke (${error.message})`)
      wake?.()
    })
    client = next
    broken = false
    if (wasBroken && !held) holdOffUntil = Date.now() + everyMs * 3
    return next
  }
  const drop = async () => {
    const old = client
    client = undefined
    await old?.end().catch(() => {})
  }

  /**
   * The owner's connection broke: the lock went with its session. Tries to take it again on a new connection, every
   * `everyMs / 4` for up to `retakeMs`: the new connection holding it (the chain goes on), or undefined when another
   * process took it first, or the time ran out (the chain is stopped then).
   */
  async function retake(): Promise<Pg.Client | undefined> {
    const until = Date.now() + retakeMs
    while (!closed && Date.now() < until) {
      try {
        await drop()
        broken = false
        const next = await connection()
        const { rows } = await next.query<{ won: boolean }>(tryLock, [chainOwnerLockName])
        if (rows[0]?.won !== true) return undefined
        if (!broken) return next
      } catch (error) {
        if (!databaseUnreachable(error)) throw error
        broken = true
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(25, everyMs / 4)))
    }
    return undefined
  }

  /** Holds the lock on `connection` while owning: `won` (then `decided`), a check of the connection every `everyMs`. */
  async function own(locked: Pg.Client, decided: () => void): Promise<void> {
    try {
      await options.won().finally(decided)
      while (!closed) {
        await pause()
        if (closed) break
        if (!broken) {
          const checked = await locked.query('select 1').then(
            () => true,
            (error: unknown) => {
              if (!databaseUnreachable(error)) throw error
              return false
            },
          )
          if (checked) continue
        }
        if (!closed) log('svc: the connection of the Sandbox chain lease broke: taking the lease back')
        const again = await retake()
        if (closed) break
        if (!again) throw new Error('its connection broke, and it could not be taken back')
        locked = again
        // The pool may reach the database a moment after the lease's connection does.
        for (let tries = 1; ; tries++)
          try {
            await options.retaken?.()
            break
          } catch (error) {
            if (tries >= 10 || !databaseUnreachable(error)) throw error
            await new Promise((resolve) => setTimeout(resolve, 200))
          }
        log('svc: the Sandbox chain lease is held again after its connection broke: the chain goes on')
      }
    } catch (error) {
      if (!closed) log(`svc: the Sandbox chain lease is given back: ${toSvcError(error).message}`)
    } finally {
      await options.lost().catch((error) => log(`svc: stopping the Sandbox chain failed: ${toSvcError(error).message}`))
      if (broken) await drop()
      else {
        await locked.query(unlock, [chainOwnerLockName]).catch(() => {})
        // The standbys try at once rather than at their next look.
        await locked.query('select pg_notify($1, $2)', [chainOwnerChannel, 'free']).catch(() => {})
      }
      held = false
    }
  }

  /** One try: resolves once it is known whether the lock was won and `won` ran (the hold goes on in `holding`). */
  const attempt = () =>
    new Promise<void>((decided) => {
      holding = (async () => {
        const lease = await connection()
        // Its connection was opened again just now (it broke): the owner, if it lives, takes the lease back first.
        if (Date.now() < holdOffUntil) return decided()
        const { rows } = await lease.query<{ won: boolean }>(tryLock, [chainOwnerLockName])
        failures.ok()
        if (!rows[0]?.won) return decided()
        if (closed) {
          await lease.query(unlock, [chainOwnerLockName])
          return decided()
        }
        held = true
        await own(lease, decided)
      })().catch(async (error) => {
        if (!closed) failures.failed(error, `svc: trying the Sandbox chain lease failed: ${toSvcError(error).message}`)
        await drop()
        decided()
      })
    })

  const tryNow = () => {
    if (closed || held || trying || Date.now() < holdOffUntil) return trying
    trying = attempt().finally(() => {
      trying = undefined
    })
    return trying
  }
  const subscription = options.notifications?.subscribe(chainOwnerChannel, () => void tryNow())
  const timer = setInterval(() => void tryNow(), everyMs)
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
      await drop()
    },
  }
}
