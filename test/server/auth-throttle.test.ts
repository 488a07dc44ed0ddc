import type { Request } from 'express'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { TooManyRequestsError } from '../../core/errors.js'
import { createAuthThrottle } from '../../server/control/auth-throttle.js'
import { startTestServer, type TestServer } from '../helpers/control.js'

// Sign-up, login and email verification are throttled with the default limits (server/serve/throttle.ts): 10 failed
// logins per email per 15 minutes, 10 sign-ups per email per 15 minutes, 30 failures per address per minute.
// Each test has a server of its own, so counts do not carry over.

let t: TestServer | undefined
afterEach(async () => {
  vi.useRealTimers()
  await t?.stop()
  t = undefined
})

const password = 'correct horse battery'
const login = (server: TestServer, email: string, pass: string) =>
  server.call('/auth/login', { body: { email, password: pass } })

function expectThrottled(
  answer: { status: number; body: unknown; headers: Headers },
  error: string,
  maxSeconds: number,
) {
  expect(answer).toMatchObject({ status: 429, body: { error } })
  const retryAfter = Number(answer.headers.get('retry-after'))
  expect(Number.isInteger(retryAfter)).toBe(true)
  // When the window that began with the first counted request ends: the tests send theirs within seconds.
  expect(retryAfter).toBeGreaterThan(maxSeconds - 30)
  expect(retryAfter).toBeLessThanOrEqual(maxSeconds)
}

describe('login', () => {
  test('10 wrong passwords for an email → 429 with Retry-After, the right password too; other emails still log in', async () => {
    t = await startTestServer()
    const { email } = await t.signup()
    for (let i = 0; i < 10; i++) expect((await login(t, email, `wrong password ${i}`)).status).toBe(401)
    const locked = 'too many failed logins for this email, try again later'
    expectThrottled(await login(t, email, 'wrong again'), locked, 15 * 60)
    // A guess that happens to be right is refused as well, or the lock would tell it apart.
    expectThrottled(await login(t, email.toUpperCase(), password), locked, 15 * 60)
    const other = await t.signup()
    expect((await login(t, other.email, password)).status).toBe(200)
  })

  test('successful logins never count against an account', async () => {
    t = await startTestServer()
    const { email } = await t.signup()
    for (let i = 0; i < 9; i++) expect((await login(t, email, 'wrong password')).status).toBe(401)
    for (let i = 0; i < 25; i++) expect((await login(t, email, password)).status).toBe(200)
    expect((await login(t, email, 'wrong password')).status).toBe(401)
    expect((await login(t, email, 'wrong password')).status).toBe(429)
  })
})

describe('per client address', () => {
  test('30 failed logins across many emails → 429 for every auth route from that address', async () => {
    t = await startTestServer()
    for (let i = 0; i < 30; i++) expect((await login(t, `nobody-${i}@example.test`, 'wrong password')).status).toBe(401)
    const fromAddress = 'too many attempts from this address, try again later'
    expectThrottled(await login(t, 'nobody-else@example.test', 'wrong password'), fromAddress, 60)
    expectThrottled(await t.call('/auth/signup', { body: { email: 'new@example.test', password } }), fromAddress, 60)
    expectThrottled(await t.call('/auth/verify-email', { body: { token: 'abc' } }), fromAddress, 60)
  })

  test('30 rejected verification tokens → 429', async () => {
    t = await startTestServer()
    for (let i = 0; i < 30; i++)
      expect(await t.call('/auth/verify-email', { body: { token: `guess-${i}` } })).toMatchObject({
        status: 400,
        body: { error: 'invalid or expired verification token' },
      })
    expectThrottled(
      await t.call('/auth/verify-email', { body: { token: 'guess' } }),
      'too many attempts from this address, try again later',
      60,
    )
  })

  test('legitimate use from one address is not slowed: 40 sign-ups, verifications and logins', async () => {
    t = await startTestServer()
    for (let i = 0; i < 40; i++) {
      const { email } = await t.signup()
      expect((await login(t, email, password)).status).toBe(200)
    }
  })

  test('the limits come from ServerDeps', async () => {
    t = await startTestServer({ authThrottle: { attemptsPerAddress: { limit: 3, windowMs: 60_000 } } })
    for (let i = 0; i < 3; i++) expect((await login(t, 'x@example.test', 'wrong password')).status).toBe(401)
    expectThrottled(
      await login(t, 'x@example.test', 'wrong password'),
      'too many attempts from this address, try again later',
      60,
    )
  })

  test('once Retry-After has passed, the address is admitted again', async () => {
    // A window this test waits out: short, yet long for three logins of an unknown email (no password hashed).
    t = await startTestServer({ authThrottle: { attemptsPerAddress: { limit: 2, windowMs: 1_500 } } })
    const server = t
    for (let i = 0; i < 2; i++) expect((await login(server, 'x@example.test', 'wrong password')).status).toBe(401)
    const refused = await login(server, 'x@example.test', 'wrong password')
    expectThrottled(refused, 'too many attempts from this address, try again later', 2)
    await vi.waitFor(async () => expect((await login(server, 'x@example.test', 'wrong password')).status).toBe(401), {
      timeout: 10_000,
      interval: 50,
    })
  })
})

describe('sign-up', () => {
  test('10 sign-ups of one email (taken after the first) → 429', async () => {
    t = await startTestServer()
    const email = `taken-${Date.now()}@example.test`
    expect((await t.call('/auth/signup', { body: { email, password } })).status).toBe(201)
    for (let i = 0; i < 9; i++) expect((await t.call('/auth/signup', { body: { email, password } })).status).toBe(409)
    expectThrottled(
      await t.call('/auth/signup', { body: { email, password } }),
      'too many sign-ups for this email, try again later',
      15 * 60,
    )
  })
})

describe('the throttle (rate-limiter-flexible, memory store), on a fake clock', () => {
  const from = (remoteAddress: string) => ({ socket: { remoteAddress } }) as Request
  const refusal = (promise: Promise<void>) =>
    promise.then(
      () => undefined,
      (error: unknown) => {
        expect(error).toBeInstanceOf(TooManyRequestsError)
        return error as TooManyRequestsError
      },
    )

  test('an address at its limit is refused until its window ends; Retry-After counts down to that end', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const throttle = createAuthThrottle({ attemptsPerAddress: { limit: 3, windowMs: 10_000 } })
    for (const wait of [0, 2_000, 2_000]) {
      vi.advanceTimersByTime(wait)
      expect(await refusal(throttle.admitAddress(from('10.0.0.1')))).toBeUndefined()
    }
    // IPv4-mapped IPv6 is the same address.
    const refused = await refusal(throttle.admitAddress(from('::ffff:10.0.0.1')))
    expect(refused).toMatchObject({ status: 429, retryAfterSeconds: 6 })
    expect(refused?.message).toBe('too many attempts from this address, try again later')
    expect(await refusal(throttle.admitAddress(from('10.0.0.2')))).toBeUndefined()
    vi.advanceTimersByTime(5_500)
    expect(await refusal(throttle.admitAddress(from('10.0.0.1')))).toMatchObject({ retryAfterSeconds: 1 })
    vi.advanceTimersByTime(500)
    expect(await refusal(throttle.admitAddress(from('10.0.0.1')))).toBeUndefined()
  })

  test('failed logins lock the email and count against the address; checking a locked email counts nothing', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const throttle = createAuthThrottle({
      loginFailuresPerEmail: { limit: 2, windowMs: 60_000 },
      failuresPerAddress: { limit: 3, windowMs: 60_000 },
    })
    const req = from('10.0.0.1')
    for (let i = 0; i < 2; i++) {
      expect(await refusal(throttle.admitLogin('a@example.test'))).toBeUndefined()
      await throttle.recordLoginFailure(req, 'a@example.test')
    }
    for (let i = 0; i < 5; i++)
      expect(await refusal(throttle.admitLogin('a@example.test'))).toMatchObject({
        retryAfterSeconds: 60,
        message: 'too many failed logins for this email, try again later',
      })
    expect(await refusal(throttle.admitLogin('b@example.test'))).toBeUndefined()
    expect(await refusal(throttle.admitAddress(req))).toBeUndefined()
    await throttle.recordFailure(req)
    expect(await refusal(throttle.admitAddress(req))).toMatchObject({ retryAfterSeconds: 60 })
    vi.advanceTimersByTime(60_000)
    expect(await refusal(throttle.admitLogin('a@example.test'))).toBeUndefined()
    expect(await refusal(throttle.admitAddress(req))).toBeUndefined()
  })

  test('sign-ups per email: the one past the limit is refused', async () => {
    vi.useFakeTimers({ now: 1_000_000 })
    const throttle = createAuthThrottle({ signupsPerEmail: { limit: 2, windowMs: 900_000 } })
    for (let i = 0; i < 2; i++) expect(await refusal(throttle.admitSignup('a@example.test'))).toBeUndefined()
    expect(await refusal(throttle.admitSignup('a@example.test'))).toMatchObject({
      retryAfterSeconds: 900,
      message: 'too many sign-ups for this email, try again later',
    })
    expect(await refusal(throttle.admitSignup('b@example.test'))).toBeUndefined()
  })
})
