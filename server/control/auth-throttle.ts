import type { Request } from 'express'
import type { RateLimiterRes } from 'rate-limiter-flexible'
import { TooManyRequestsError } from '../../core/errors.js'
import {
  type AuthThrottleLimits,
  createLimiter,
  defaultAuthThrottleLimits,
  type Limiter,
  type LimiterStore,
} from '../serve/index.js'

export type AuthThrottle = ReturnType<typeof createAuthThrottle>

/**
 * The client address of a request, IPv4-mapped IPv6 as IPv4: express's `req.ip`, which is the socket's peer unless
 * that peer is a proxy `svc serve --trust-proxy` names (then the address it reports in X-Forwarded-For).
 */
export function clientAddressOf(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown'
  return address.startsWith('::ffff:') ? address.slice(7) : address
}

/** The 429 of a key at its limit: `Retry-After` is when its window ends (at least 1 s). */
const tooMany = (message: string, counted: RateLimiterRes) =>
  new TooManyRequestsError(message, Math.max(1, Math.ceil(counted.msBeforeNext / 1000)))

/**
 * Throttles sign-up, login and email verification (limits: {@link AuthThrottleLimits}) with rate-limiter-flexible.
 * Each check throws a 429 {@link TooManyRequestsError} whose `Retry-After` is when the key's window ends. The counts are
 * this process's, or with `store` every process's on that PostgreSQL database.
 */
export function createAuthThrottle(limits: Partial<AuthThrottleLimits> = {}, store?: LimiterStore) {
  const { loginFailuresPerEmail, signupsPerEmail, failuresPerAddress, attemptsPerAddress } = {
    ...defaultAuthThrottleLimits,
    ...limits,
  }
  const limiters = {
    loginFailures: createLimiter(loginFailuresPerEmail, store, 'login_failures'),
    signups: createLimiter(signupsPerEmail, store, 'signups'),
    addressFailures: createLimiter(failuresPerAddress, store, 'address_failures'),
    addressAttempts: createLimiter(attemptsPerAddress, store, 'address_attempts'),
  }
  /** Refuses a key that used up its limit, without counting this request. */
  const refuse = async (limiter: Limiter, key: string, message: string) => {
    const counted = await limiter.get(key)
    // A window that just ended may still be in the store until its timer runs.
    if (counted && counted.msBeforeNext > 0 && counted.consumedPoints >= limiter.points) throw tooMany(message, counted)
  }
  /** Counts this request, and refuses it past the limit (it is counted then too, which changes no window's end). */
  const consume = (limiter: Limiter, key: string, message: string) =>
    limiter.consume(key).then(
      () => {},
      (refused: RateLimiterRes | Error) => {
        throw refused instanceof Error ? refused : tooMany(message, refused)
      },
    )
  const fromAddress = 'too many attempts from this address, try again later'

  return {
    /** Before anything else: the address's failures, then its attempts (a request refused for its failures is not counted). */
    async admitAddress(req: Request): Promise<void> {
      const address = clientAddressOf(req)
      await refuse(limiters.addressFailures, address, fromAddress)
      await consume(limiters.addressAttempts, address, fromAddress)
    },
    /** A login for `email` may go on (checked before the password, so a locked account answers 429 either way). */
    admitLogin: (email: string): Promise<void> =>
      refuse(limiters.loginFailures, email, 'too many failed logins for this email, try again later'),
    /** A sign-up for `email` may go on; counts it. */
    admitSignup: (email: string): Promise<void> =>
      consume(limiters.signups, email, 'too many sign-ups for this email, try again later'),
    /** A failed login: counts against the email and the address. */
    async recordLoginFailure(req: Request, email: string): Promise<void> {
      await Promise.all([limiters.loginFailures.penalty(email), limiters.addressFailures.penalty(clientAddressOf(req))])
    },
    /** Another failure (a taken email at sign-up, a rejected verification token): counts against the address. */
    async recordFailure(req: Request): Promise<void> {
      await limiters.addressFailures.penalty(clientAddressOf(req))
    },
  }
}
