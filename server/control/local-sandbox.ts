import type { Request, RequestHandler } from 'express'
import { ForbiddenError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { isLoopbackAddress } from '../../core/address-list.js'
import { gatewayHopHeader } from '../upstream/index.js'
import { assertAdmin } from '../serve/index.js'

/**
 * "From this machine": a direct loopback caller (`svc up`), or, on a server (`svc serve`, where a proxy makes every
 * caller loopback), one presenting the admin token. A request the gateway forwarded is never one.
 */
export function assertLocalCaller(req: Request, deps: Pick<ServerDeps, 'trust'>, refusal: string, what: string): void {
  if (req.headers[gatewayHopHeader] !== undefined) throw new ForbiddenError(refusal)
  if (deps.trust) assertAdmin(req, deps.trust, what)
  else if (!isLoopbackAddress(req.socket.remoteAddress ?? '')) throw new ForbiddenError(refusal)
}

/**
 * The guard of the routes that change the whole Sandbox (snapshots, time travel, faults, the chain's restart): like
 * the outbox, direct callers on this machine only (a request the gateway forwarded comes from loopback too, but bears
 * the gateway's header), and on the Sandbox control plane ({sandbox_base_url}) only. The host decides, not
 * `X-Svc-Environment`: that header picks the environment of a JWT, and these routes take no credential (what they
 * change is everyone's; whoever runs svc here owns it).
 */
export function assertLocalSandboxCaller(req: Request, deps: Pick<ServerDeps, 'hosts' | 'trust'>, what: string): void {
  assertLocalCaller(req, deps, `${what}: from this machine only`, what)
  if (req.hostEnvironment !== 'development')
    throw new ForbiddenError(`${what}: for the Sandbox only (call ${controlUrl(deps.hosts, 'development')})`)
}

/** {@link assertLocalSandboxCaller} as a route's middleware. */
export function localSandboxOnly(deps: Pick<ServerDeps, 'hosts' | 'trust'>, what: string): RequestHandler {
  return (req, _res, next) => {
    assertLocalSandboxCaller(req, deps, what)
    next()
  }
}
