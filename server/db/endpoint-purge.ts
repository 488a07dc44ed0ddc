import type { Kysely } from 'kysely'
import { machineClock, type Clock } from '../../core/clock.js'
import { purgeAllExpired } from './endpoints.js'
import { purgeEndpointClaims } from './endpoint-claims.js'
import { purgePaymentIdClaims } from './payment-id-claims.js'
import { dialectOf } from './dialect.js'
import type { Database } from './tables.js'

export type StartEndpointPurgeOptions = {
  /** Time between purges. @defaultValue 60_000 (one minute) */
  everyMs?: number | undefined
  log?: ((message: string) => void) | undefined
  /** svc's clock, which decides what expired (time travel moves it). @defaultValue the machine's clock */
  clock?: Clock | undefined
}

/**
 * Deletes expired ephemeral endpoints now and then, so control-plane reads stay reads (they leave expired rows out
 * instead), and on PostgreSQL the one-time endpoints' old tombstones and the claims (endpoints, payment-identifier ids) that ran out. The timer is unref'd: it never keeps the process alive. Returns the stop function, which waits for a
 * purge under way (call it before closing the database).
 */
export function startEndpointPurge(db: Kysely<Database>, options: StartEndpointPurgeOptions = {}): () => Promise<void> {
  const { everyMs = 60_000, log = (message: string) => console.error(message), clock = machineClock } = options
  let running: Promise<void> | undefined
  const claims = dialectOf(db).name === 'postgres'
  const timer = setInterval(() => {
    running ??= Promise.all([
      purgeAllExpired(db, clock.nowIso()),
      claims ? purgeEndpointClaims(db) : undefined,
      claims ? purgePaymentIdClaims(db) : undefined,
    ])
      .then(
        () => {},
        (error: unknown) => log(`purging expired endpoints failed: ${(error as Error)?.message ?? String(error)}`),
      )
      .finally(() => (running = undefined))
  }, everyMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
