import type { Request } from 'express'
import { TooManyRequestsError } from '../../core/errors.js'
import { defaultAuthThrottleLimits, SlidingWindow, type AuthThrottleLimits } from '../throttle.js'

export type AuthThrottle = ReturnType<typeof createAuthThrottle>

/** The client address of a request: the socket's peer (svc sits behind no proxy), IPv4-mapped IPv6 as IPv4. */
export function clientAddressOf(req: Request): string {
  const address = req.socket.remoteAddress ?? 'unknown'
  return address.startsWith('::ffff:') ? address.slice(7) : address
}

/**
 * Throttles sign-up, login and email verification (limits: {@link AuthThrottleLimits}). Each check throws a
 * 429 {@link TooManyRequestsError} whose `Retry-After` is when the oldest counted event leaves the window.
 */
export function createAuthThrottle(limits: Partial<AuthThrottleLimits> = {}) {
  const { loginFailuresPerEmail, signupsPerEmail, failuresPerAddress, attemptsPerAddress } = {
    ...defaultAuthThrottleLimits,
    ...limits,
  }
  const windows = {
    loginFailures: new SlidingWindow(loginFailuresPerEmail),
    signups: new SlidingWindow(signupsPerEmail),
    addressFailures: new SlidingWindow(failuresPerAddress),
    addressAttempts: new SlidingWindow(attemptsPerAddress),
  }
  const refuse = (window: SlidingWindow, key: string, message: string) => {
    const retryAfter = window.retryAfterSeconds(key)
    if (retryAfter !== undefined) throw new TooManyRequestsError(message, retryAfter)
  }
  const fromAddress = 'too many attempts from this address, try again later'

  return {
    /** Before anything else: the address's attempts and failures. A refused request is not counted. */
    admitAddress(req: Request): void {
      const address = clientAddressOf(req)
      refuse(windows.addressAttempts, address, fromAddress)
      refuse(windows.addressFailures, address, fromAddress)
      windows.addressAttempts.record(address)
    },
    /** A login for `email` may go on (checked before the password, so a locked account answers 429 either way). */
    admitLogin(email: string): void {
      refuse(windows.loginFailures, email, 'too many failed logins for this email, try again later')
    },
    /** A sign-up for `email` may go on; counts it. */
    admitSignup(email: string): void {
      refuse(windows.signups, email, 'too many sign-ups for this email, try again later')
      windows.signups.record(email)
    },
    /** A failed login: counts against the email and the address. */
    recordLoginFailure(req: Request, email: string): void {
      windows.loginFailures.record(email)
      windows.addressFailures.record(clientAddressOf(req))
    },
    /** Another failure (a taken email at sign-up, a rejected verification token): counts against the address. */
    recordFailure(req: Request): void {
      windows.addressFailures.record(clientAddressOf(req))
    },
  }
}
