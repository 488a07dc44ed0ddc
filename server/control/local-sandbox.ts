import type { RequestHandler } from 'express'
import { ForbiddenError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { gatewayHopHeader, isLoopbackAddress } from '../own-listeners.js'

/**
 * Guard of the routes that change the whole Sandbox (snapshots, time travel): like the outbox, direct callers on this
 * machine only (a request the gateway forwarded comes from loopback too, but bears the gateway's header), and on the
 * Sandbox control plane ({sandbox_base_url}) only. No credential: what they change is everyone's.
 */
export function localSandboxOnly(deps: Pick<ServerDeps, 'hosts'>, what: string): RequestHandler {
  return (req, _res, next) => {
    const remote = req.socket.remoteAddress ?? ''
    if (!isLoopbackAddress(remote) || req.headers[gatewayHopHeader] !== undefined)
      throw new ForbiddenError(`${what}: direct callers on this machine only`)
    if (req.hostEnvironment !== 'development')
      throw new ForbiddenError(`${what}: the Sandbox only (${controlUrl(deps.hosts, 'development')})`)
    next()
  }
}
