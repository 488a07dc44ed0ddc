/** A limit: at most `limit` events in any `windowMs` span. */
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

export type SlidingWindowOptions = RateLimit & {
  /** Most keys remembered; past it, expired keys go first, then the least recently started. @defaultValue 10,000 */
  maxKeys?: number
  /** The clock, in ms. @defaultValue Date.now */
  now?: () => number
}

/** Counts events per key over a sliding window: `retryAfterSeconds` says when a key at its limit may go on. */
export class SlidingWindow {
  private readonly events = new Map<string, number[]>()
  private readonly limit: number
  private readonly windowMs: number
  private readonly maxKeys: number
  private readonly now: () => number

  constructor(options: SlidingWindowOptions) {
    this.limit = options.limit
    this.windowMs = options.windowMs
    this.maxKeys = options.maxKeys ?? 10_000
    this.now = options.now ?? Date.now
  }

  /** Seconds until `key` is under its limit again (at least 1); undefined when it is under it now. */
  retryAfterSeconds(key: string): number | undefined {
    const times = this.recent(key, this.now())
    if (times.length < this.limit) return undefined
    const freedAt = times[times.length - this.limit]! + this.windowMs
    return Math.max(1, Math.ceil((freedAt - this.now()) / 1000))
  }

  /** Counts one event for `key`. */
  record(key: string): void {
    const now = this.now()
    const times = this.recent(key, now)
    times.push(now)
    // Only the last `limit` events can decide an answer.
    if (times.length > this.limit) times.splice(0, times.length - this.limit)
    if (!this.events.has(key)) {
      this.makeRoom(now)
      this.events.set(key, times)
    }
  }

  /** The key's events inside the window (expired ones are dropped). */
  private recent(key: string, now: number): number[] {
    const times = this.events.get(key)
    if (!times) return []
    const start = times.findIndex((time) => time > now - this.windowMs)
    if (start === -1) {
      this.events.delete(key)
      return []
    }
    if (start > 0) times.splice(0, start)
    return times
  }

  private makeRoom(now: number): void {
    if (this.events.size < this.maxKeys) return
    for (const [key, times] of this.events) if (times[times.length - 1]! <= now - this.windowMs) this.events.delete(key)
    for (const key of this.events.keys()) {
      if (this.events.size < this.maxKeys) break
      this.events.delete(key)
    }
  }
}
