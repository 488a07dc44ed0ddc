import { createHash } from 'node:crypto'
import { CompiledQuery, type Kysely } from 'kysely'
import type { RateLimiterRes } from 'rate-limiter-flexible'
// The stores svc uses alone: the package's index loads every store it has (Redis, Mongo, Drizzle, …; about 100 ms).
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js'
import RateLimiterPostgres from 'rate-limiter-flexible/lib/RateLimiterPostgres.js'

/** A limit: at most `limit` events in a `windowMs` window. */
export type RateLimit = { limit: number; windowMs: number }

/**
 * The auth routes' limits (`POST /auth/signup`, `/auth/login`, `/auth/verify-email`): per svc process in memory, or
 * across the processes of one PostgreSQL database.
 * Failures are what an attacker produces and a user rarely does, so the tight limits count failures only; a
 * successful login never counts against its account.
 */
export type AuthThrottleLimits = {
  /** Failed logins (wrong email or password) per email. @defaultValue 10 per 15 minutes */
  loginFailuresPerEmail: RateLimit
  /** Sign-up attempts per email (a valid body; a taken email included). @defaultValue 10 per 15 minutes */
  signupsPerEmail: RateLimit
  /** Failures per client address: failed logins, sign-ups of a taken email, rejected verification tokens. @defaultValue 30 per minute */
  failuresPerAddress: RateLimit
  /** Every request to the three routes per client address, failed or not (a flood). @defaultValue 600 per minute */
  attemptsPerAddress: RateLimit
}

export const defaultAuthThrottleLimits: AuthThrottleLimits = {
  loginFailuresPerEmail: { limit: 10, windowMs: 15 * 60_000 },
  signupsPerEmail: { limit: 10, windowMs: 15 * 60_000 },
  failuresPerAddress: { limit: 30, windowMs: 60_000 },
  attemptsPerAddress: { limit: 600, windowMs: 60_000 },
}

/** What svc asks of a rate-limiter-flexible limiter (the memory and the PostgreSQL stores both answer it). */
export type Limiter = {
  readonly points: number
  get(key: string): Promise<RateLimiterRes | null>
  consume(key: string): Promise<RateLimiterRes>
  penalty(key: string): Promise<RateLimiterRes>
}

/** Where the counts live: this process's memory, or PostgreSQL's `auth_throttle` table (every process's). */
export type LimiterStore = { postgres: Kysely<any> } | undefined

/**
 * A rate-limiter-flexible limiter of `limit`: a key's window starts at its first event and lasts `windowMs`. In memory
 * (keys leave it when their window ends), or with `store.postgres` RateLimiterPostgres on the table migration
 * 2026_11_27_06 made, through svc's own pool (Kysely's), its keys hashed (the table's key is a varchar(255); an email
 * may be longer) and named by `name`, so processes behind one load balancer count together.
 */
export function createLimiter({ limit, windowMs }: RateLimit, store?: LimiterStore, name = 'limit'): Limiter {
  if (!store) return new RateLimiterMemory({ points: limit, duration: windowMs / 1000 })
  const db = store.postgres
  // The package's pg client shape (`query({ text, values })` → `{ rows, rowCount }`) over Kysely's pool.
  const storeClient = {
    async query({ text, values }: { text: string; values?: unknown[] }) {
      const result = await db.executeQuery(CompiledQuery.raw(text, values ?? []))
      return { rows: result.rows, rowCount: Math.max(result.rows.length, Number(result.numAffectedRows ?? 0)) }
    },
  }
  const limiter = new RateLimiterPostgres({
    storeClient,
    storeType: 'client',
    tableName: 'auth_throttle',
    tableCreated: true,
    keyPrefix: name,
    points: limit,
    duration: windowMs / 1000,
  })
  const hashed = (key: string) => createHash('sha256').update(key).digest('hex')
  return {
    points: limit,
    get: (key) => limiter.get(hashed(key)),
    consume: (key) => limiter.consume(hashed(key)),
    penalty: (key) => limiter.penalty(hashed(key)),
  }
}
