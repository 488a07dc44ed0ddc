import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { Router } from 'express'
import { z } from 'zod'
import { BadRequestError, ConflictError, UnauthorizedError } from '../../core/errors.js'
import { parseBody } from '../../core/http.js'
import { credentialsSchema } from '../../core/inputs/credentials.js'
import { newId, nowIso } from '../ids.js'
import {
  emailTaken,
  findEmailVerification,
  findUserByEmail,
  findUserById,
  insertEmailVerification,
  insertOutboxMail,
  insertUser,
  listOutbox,
  markEmailVerified,
  sharedByProcesses,
  type UserRow,
} from '../db/index.js'
import { guard, principalOf, signSessionToken } from './context.js'
import { createAuthThrottle } from './auth-throttle.js'
import type { ServerDeps } from '../deps.js'
import { clockOf } from '../sandbox/index.js'
import { assertLocalCaller } from './local-sandbox.js'

const scrypt = promisify(scryptCb) as (password: string, salt: Buffer, keylen: number) => Promise<Buffer>

const loginSchema = z.strictObject({
  email: z.string({ error: 'expected a string' }).max(254),
  password: z.string({ error: 'expected a string' }).max(1024),
})
const verifySchema = z.strictObject({
  token: z.string({ error: 'expected the token from the verification mail' }).min(1).max(200),
})

const verificationTtlMs = 24 * 3600 * 1000

export async function hashPassword(password: string, salt = randomBytes(16)) {
  const hash = await scrypt(password, salt, 64)
  return { hash: hash.toString('base64url'), salt: salt.toString('base64url') }
}

async function passwordMatches(user: UserRow, password: string): Promise<boolean> {
  const { hash } = await hashPassword(password, Buffer.from(user.password_salt, 'base64url'))
  const a = Buffer.from(hash)
  const b = Buffer.from(user.password_hash)
  return a.length === b.length && timingSafeEqual(a, b)
}

export function publicUser(user: UserRow) {
  return {
    id: user.id,
    email: user.email,
    email_verified: user.email_verified_at !== null,
    created_at: user.created_at,
  }
}

/** Writes a verification mail to the local outbox (nothing leaves the machine) and returns its token. */
export async function sendVerificationMail(deps: ServerDeps, user: UserRow): Promise<string> {
  // Hex, so a token never starts with '-' (which a command line would read as an option).
  const token = randomBytes(24).toString('hex')
  const createdAt = nowIso()
  await insertEmailVerification(deps.db, {
    token,
    user_id: user.id,
    // svc's clock (time travel moves it) judges the token's lifetime.
    expires_at: new Date(clockOf(deps).now() + verificationTtlMs).toISOString(),
    used_at: null,
    created_at: createdAt,
  })
  await insertOutboxMail(deps.db, {
    to_email: user.email,
    subject: 'Verify your email for svc',
    body: `Confirm ${user.email} with:\n\n  svc verify-email ${token}\n\nor POST /auth/verify-email {"token": "${token}"}. The token is valid for 24 hours.`,
    token,
    created_at: createdAt,
  })
  return token
}

/** Sign-up, login and email verification: public routes. */
export function createAuthRoutes(deps: ServerDeps): Router {
  const router = Router()
  // On PostgreSQL the counts are every process's: 11 failed logins spread over a load balancer's processes are 11.
  const throttle = createAuthThrottle(deps.authThrottle, sharedByProcesses(deps.db) ? { postgres: deps.db } : undefined)

  router.post('/auth/signup', async (req, res) => {
    await throttle.admitAddress(req)
    const { email: rawEmail, password } = parseBody(credentialsSchema, req.body)
    const email = rawEmail.toLowerCase()
    await throttle.admitSignup(email)
    if (await emailTaken(deps.db, email)) {
      await throttle.recordFailure(req)
      throw new ConflictError('email already registered')
    }
    const { hash, salt } = await hashPassword(password)
    const user: UserRow = {
      id: newId('usr'),
      email,
      password_hash: hash,
      password_salt: salt,
      email_verified_at: deps.autoVerify ? nowIso() : null,
      created_at: nowIso(),
    }
    // Two sign-ups racing for one email: the unique index decides (409 too).
    await insertUser(deps.db, user)
    if (!deps.autoVerify) await sendVerificationMail(deps, user)
    res.status(201).json({ token: await signSessionToken(deps, user), user: publicUser(user) })
  })

  router.post('/auth/login', async (req, res) => {
    await throttle.admitAddress(req)
    const { email: rawEmail, password } = parseBody(loginSchema, req.body)
    const email = rawEmail.toLowerCase()
    await throttle.admitLogin(email)
    const user = await findUserByEmail(deps.db, email)
    if (!user || !(await passwordMatches(user, password))) {
      await throttle.recordLoginFailure(req, email)
      throw new UnauthorizedError()
    }
    res.json({ token: await signSessionToken(deps, user), user: publicUser(user) })
  })

  router.post('/auth/verify-email', async (req, res) => {
    await throttle.admitAddress(req)
    const { token } = parseBody(verifySchema, req.body)
    const row = await findEmailVerification(deps.db, token)
    if (!row || row.expires_at < clockOf(deps).nowIso()) {
      await throttle.recordFailure(req)
      throw new BadRequestError('invalid or expired verification token')
    }
    const user = await findUserById(deps.db, row.user_id)
    if (!user) throw new Error(`the user of verification token ${token} is gone`)
    if (!user.email_verified_at) {
      const verifiedAt = nowIso()
      await markEmailVerified(deps.db, user.id, token, verifiedAt)
      user.email_verified_at = verifiedAt
    }
    res.json({ verified: true, user: publicUser(user) })
  })

  // The local outbox, for the CLI and the dashboard: direct loopback callers only (an admin on a server), since mails
  // carry tokens (a request the gateway forwarded also comes from loopback: it bears the gateway's header).
  router.get('/dev/outbox', async (req, res) => {
    assertLocalCaller(req, deps, 'the outbox is readable from this machine only', 'the outbox')
    const to = typeof req.query.email === 'string' ? req.query.email.toLowerCase() : undefined
    const rows = await listOutbox(deps.db, { to, limit: 100 })
    res.json({
      messages: rows.map((row) => ({
        id: row.id,
        to: row.to_email,
        subject: row.subject,
        body: row.body,
        token: row.token,
        used: row.recipient_verified,
        created_at: row.created_at,
      })),
    })
  })

  return router
}

/** Routes for the signed-in caller. */
export function createSessionRoutes(deps: ServerDeps): Router {
  const router = Router()

  router.get('/auth/me', guard(), (req, res) => {
    const principal = principalOf(req)
    res.json({
      user: publicUser(principal.user),
      environment: principal.environment,
      via: principal.via,
      scopes: principal.scopes ? [...principal.scopes] : null,
    })
  })

  router.post('/auth/resend-verification', guard({ jwtOnly: true }), async (req, res) => {
    const { user } = principalOf(req)
    if (user.email_verified_at) throw new ConflictError('email already verified')
    await sendVerificationMail(deps, user)
    res.status(202).json({ sent: true, to: user.email })
  })

  return router
}
