import type { RateLimiterMemory as MemoryLimiter } from 'rate-limiter-flexible'
// The memory store alone: the package's index loads every store it has (Redis, Mongo, Drizzle, …; about 100 ms).
import RateLimiterMemory from 'rate-limiter-flexible/lib/RateLimiterMemory.js'

/** A limit: at most `limit` events in a `windowMs` window. */
export type RateLimit = { limit: number; windowMs: number }

/**
 * The auth routes' limits (`POST /auth/signup`, `/auth/login`, `/auth/verify-email`), per svc process, in memory.
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

/**
 * A rate-limiter-flexible limiter of `limit`: a key's window starts at its first event and lasts `windowMs`; the
 * store is this process's memory (keys leave it when their window ends). Another store (SQLite, Redis) would share
 * the counts between processes.
 */
export function createLimiter({ limit, windowMs }: RateLimit): MemoryLimiter {
  return new RateLimiterMemory({ points: limit, duration: windowMs / 1000 })
}
