import type { Request } from 'express'
import { ForbiddenError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { gatewayHopHeader, isLoopbackAddress } from '../own-listeners.js'

/**
 * Routes that change the whole Sandbox (faults, the chain's restart) answer direct callers on this machine only, and
 * only on the Sandbox: the caller is on loopback and not the gateway (whose upstream requests come from loopback too,
 * but bear its header), and the request names the development environment (the Sandbox control plane's host, or
 * `X-Svc-Environment: development`). Like the outbox, they need no credential: whoever runs svc here owns it.
 */
export function assertLocalSandboxCaller(req: Request, deps: Pick<ServerDeps, 'hosts'>, what: string): void {
  const remote = req.socket.remoteAddress ?? ''
  if (!isLoopbackAddress(remote) || req.headers[gatewayHopHeader] !== undefined)
    throw new ForbiddenError(`${what}: from this machine only`)
  const header = req.get('x-svc-environment')?.trim().toLowerCase()
  const environment = header || req.hostEnvironment
  if (environment !== 'development')
    throw new ForbiddenError(`${what}: for the Sandbox only (call ${controlUrl(deps.hosts, 'development')})`)
}
