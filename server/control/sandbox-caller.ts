import type { Request } from 'express'
import { ForbiddenError, UnauthorizedError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { gatewayHopHeader } from '../upstream/index.js'
import type { Principal } from './context.js'
import { assertLocalSandboxCaller } from './local-sandbox.js'

/** Resolves a control-plane request's seller credential (context.ts's authenticator). */
export type Authenticate = (
  req: Request,
  hostEnvironment: 'production' | 'development',
) => Promise<Principal | undefined>

/**
 * Who calls a Sandbox route. On `svc up` the machine owns its Sandbox: a direct loopback caller, whatever credential
 * it bears (the MCP server sends its API key), is the owner, as before. On `svc serve` (a shared Sandbox) the owner
 * is the admin token; a seller's credential (API key or session) is a tenant, acting on its own APIs only (issue 27:
 * isolation by account, not by process).
 */
export type SandboxCaller = { owner: true; actor: 'admin' | 'local' } | { owner: false; principal: Principal }

/** The bearer token of the request, if any. */
function bearerOf(req: Request): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')
  return match?.[1]
}

/** Whether the request bears a seller's credential rather than the admin token (or nothing). */
function bearsSellerCredential(req: Request, deps: Pick<ServerDeps, 'trust'>): boolean {
  if (req.get('x-api-key') !== undefined) return true
  const bearer = bearerOf(req)
  if (bearer === undefined) return false
  return !deps.trust?.adminToken?.matches(bearer)
}

/** The caller of a Sandbox route (the Sandbox control plane only; never a request the gateway forwarded). */
export async function sandboxCallerOf(
  req: Request,
  deps: Pick<ServerDeps, 'hosts' | 'trust'>,
  authenticate: Authenticate,
  what: string,
): Promise<SandboxCaller> {
  if (!deps.trust || !bearsSellerCredential(req, deps)) {
    assertLocalSandboxCaller(req, deps, what)
    return { owner: true, actor: deps.trust ? 'admin' : 'local' }
  }
  // The same host and hop rules as the owner's, with the credential checked on top.
  if (req.headers[gatewayHopHeader] !== undefined) throw new ForbiddenError(`${what}: not through the gateway`)
  if (req.hostEnvironment !== 'development')
    throw new ForbiddenError(`${what}: for the Sandbox only (call ${controlUrl(deps.hosts, 'development')})`)
  const principal = await authenticate(req, 'development')
  if (!principal) throw new UnauthorizedError()
  if (principal.environment !== 'development')
    throw new ForbiddenError(`${what}: for the Sandbox only (a development credential)`)
  return { owner: false, principal }
}

/** The owner of the Sandbox, or a 403 saying the change is everyone's (a tenant's credential does not do). */
export async function sandboxOwnerOf(
  req: Request,
  deps: Pick<ServerDeps, 'hosts' | 'trust'>,
  authenticate: Authenticate,
  what: string,
): Promise<'admin' | 'local'> {
  const caller = await sandboxCallerOf(req, deps, authenticate, what)
  if (!caller.owner)
    throw new ForbiddenError(
      `${what}: changes the whole Sandbox, so it needs the admin credential (svc serve's admin token), not a seller's`,
    )
  return caller.actor
}
