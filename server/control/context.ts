import { createHash } from 'node:crypto'
import type { Request, RequestHandler } from 'express'
import { errors, jwtVerify, SignJWT } from 'jose'
import { LRUCache } from 'lru-cache'
import { BadRequestError, ForbiddenError, UnauthorizedError } from '../../core/errors.js'
import { findApiKeyCaller, findUserById, touchApiKey, type UserRow } from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import { keyEnvironment, type Environment } from '../../core/hosts.js'
import type { Scope } from '../../core/scopes.js'
import { clockOf } from '../sandbox/index.js'

/** Who is calling, in which environment, and with what rights. */
export type Principal = {
  user: UserRow
  environment: Environment
  via: 'jwt' | 'api_key'
  /** null for a JWT: a seller's own session may do everything. */
  scopes: ReadonlySet<Scope> | null
  keyId?: string
}

export const invalidToken = () => new UnauthorizedError('invalid token')

/** A session JWT past its lifetime (by svc's clock). */
export const sessionExpiredMessage =
  'session expired: log in again (`svc login`, with --sandbox for the Sandbox; or POST /auth/login)'

export async function signSessionToken(deps: ServerDeps, user: UserRow): Promise<string> {
  return new SignJWT({ email: user.email })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user.id)
    .setIssuer('svc')
    .setIssuedAt(clockOf(deps).nowSeconds())
    .setExpirationTime(clockOf(deps).nowSeconds() + (deps.jwtTtlSeconds ?? 7 * 24 * 3600))
    .sign(deps.secrets.jwtSecret)
}

export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret).digest('hex')
}

/** last_used_at is written at most this often per key, so reads stay reads. */
const lastUsedEveryMs = 60_000

/**
 * Resolves the caller of a control-plane request. `hostEnvironment` is the environment of the control-plane host
 * the request came to ({base_url} = production, {sandbox_base_url} = development).
 */
export function createAuthenticator(deps: ServerDeps) {
  const lastUsedWritten = new Map<string, number>()
  // Tokens already verified, until they expire: HMAC verification of the same token always gives the same answer.
  // Expiry is judged here by svc's clock (time travel moves it), not by lru-cache's ttl, which follows the machine's.
  const verified = new LRUCache<string, { userId: string; expiresAt: number }>({ max: 10_000 })

  async function verifyJwt(token: string): Promise<string> {
    const cached = verified.get(token)
    // svc's clock judges the lifetime (time travel moves it).
    const clock = clockOf(deps)
    if (cached && cached.expiresAt > clock.now()) return cached.userId
    try {
      const { payload } = await jwtVerify(token, deps.secrets.jwtSecret, {
        issuer: 'svc',
        algorithms: ['HS256'],
        currentDate: new Date(clock.now()),
      })
      if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number') throw new Error('no subject or expiry')
      verified.set(token, { userId: payload.sub, expiresAt: payload.exp * 1000 })
      return payload.sub
    } catch (error) {
      verified.delete(token)
      // An expired session says how to get a new one; anything else about the token stays "invalid token".
      if (error instanceof errors.JWTExpired) throw new UnauthorizedError(sessionExpiredMessage)
      throw invalidToken()
    }
  }

  /** A JWT's environment is the one `X-Svc-Environment` names; without the header, the host's. */
  async function fromJwt(token: string, req: Request, hostEnvironment: Environment): Promise<Principal> {
    const userId = await verifyJwt(token)
    const user = await findUserById(deps.db, userId)
    if (!user) throw invalidToken()
    return { user, environment: headerEnvironment(req) ?? hostEnvironment, via: 'jwt', scopes: null }
  }

  async function fromApiKey(secret: string, req: Request, hostEnvironment: Environment): Promise<Principal> {
    const environment = keyEnvironment(secret)
    // A key used against the other environment's base URL, or with a header naming the other environment,
    // fails at once: it is never looked up.
    if (!environment || environment !== hostEnvironment) throw invalidToken()
    const header = headerEnvironment(req)
    if (header && header !== environment) throw invalidToken()
    const caller = await findApiKeyCaller(deps.db, hashApiKey(secret))
    if (!caller || caller.key.revoked_at || caller.key.environment !== environment) throw invalidToken()
    const { key, user } = caller
    const now = Date.now()
    if ((lastUsedWritten.get(key.id) ?? 0) + lastUsedEveryMs < now) {
      lastUsedWritten.set(key.id, now)
      await touchApiKey(deps.db, key.id, new Date(now).toISOString())
    }
    return { user, environment, via: 'api_key', scopes: new Set(JSON.parse(key.scopes) as Scope[]), keyId: key.id }
  }

  return async function authenticate(req: Request, hostEnvironment: Environment): Promise<Principal | undefined> {
    const apiKey = req.get('x-api-key')
    if (apiKey !== undefined) return fromApiKey(apiKey.trim(), req, hostEnvironment)
    const authorization = req.get('authorization')
    if (authorization === undefined) return undefined
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization)
    if (!match) throw invalidToken()
    const token = match[1]!
    // An API key sent as a bearer token is still an API key.
    if (token.startsWith('svc_')) return fromApiKey(token, req, hostEnvironment)
    return fromJwt(token, req, hostEnvironment)
  }
}

/** The environment a request names with `X-Svc-Environment` (undefined without the header: the host decides); a bad value is a client error. */
function headerEnvironment(req: Request): Environment | undefined {
  const value = req.get('x-svc-environment')
  if (value === undefined || value === '') return undefined
  const normalized = value.trim().toLowerCase()
  if (normalized === 'production' || normalized === 'development') return normalized
  throw new BadRequestError('X-Svc-Environment must be "production" or "development"')
}

export type Guard = {
  /** Scopes an API key needs (all of them). */
  scopes?: Scope[]
  /** A write: needs a verified email. */
  write?: boolean
  /** JWT only (key management, Sandbox wallet): an API key gets 403 "jwt required". */
  jwtOnly?: boolean
  /** Only in the development environment. */
  development?: boolean
}

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal
  }
}

/** The caller of a guarded route; the guard has run. */
export function principalOf(req: Request): Principal {
  if (!req.principal) throw new UnauthorizedError()
  return req.principal
}

/** Route guard: the checks in the order the spec implies: who, which credential, where, which scope, verified. */
export function guard(rule: Guard = {}): RequestHandler {
  return (req, _res, next) => {
    const principal = req.principal
    if (!principal) throw new UnauthorizedError()
    if (rule.jwtOnly && principal.via !== 'jwt') throw new ForbiddenError('jwt required')
    if (rule.development && principal.environment !== 'development')
      throw new ForbiddenError('this route needs the development environment (X-Svc-Environment: development)')
    if (principal.scopes && rule.scopes?.some((scope) => !principal.scopes!.has(scope)))
      throw new ForbiddenError('insufficient scope')
    if (rule.write && !principal.user.email_verified_at) throw new ForbiddenError('email verification required')
    next()
  }
}
