import { afterEach, describe, expect, test } from 'vitest'
import { SlidingWindow } from '../../server/throttle.js'
import { startTestServer, type TestServer } from '../helpers/control.js'

// Sign-up, login and email verification are throttled with the default limits (server/throttle.ts): 10 failed
// logins per email per 15 minutes, 10 sign-ups per email per 15 minutes, 30 failures per address per minute.
// Each test has a server of its own, so counts do not carry over.

let t: TestServer | undefined
afterEach(async () => {
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
  expect(retryAfter).toBeGreaterThan(0)
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

describe('SlidingWindow', () => {
  test('a key at its limit is refused until its oldest event leaves the window', () => {
    let now = 1_000_000
    const window = new SlidingWindow({ limit: 3, windowMs: 10_000, now: () => now })
    for (const at of [0, 2_000, 4_000]) {
      now = 1_000_000 + at
      expect(window.retryAfterSeconds('a')).toBeUndefined()
      window.record('a')
    }
    expect(window.retryAfterSeconds('a')).toBe(6)
    expect(window.retryAfterSeconds('b')).toBeUndefined()
    now = 1_000_000 + 10_000
    expect(window.retryAfterSeconds('a')).toBeUndefined()
  })

  test('it remembers at most maxKeys keys', () => {
    const window = new SlidingWindow({ limit: 1, windowMs: 60_000, maxKeys: 100 })
    for (let i = 0; i < 1_000; i++) window.record(`key-${i}`)
    expect(window.retryAfterSeconds('key-999')).toBeGreaterThan(0)
    expect(window.retryAfterSeconds('key-0')).toBeUndefined()
  })
})
