import { Router } from 'express'
import { NotFoundError } from '../../core/errors.js'
import { controlUrl } from '../../core/hosts.js'
import type { ServerDeps } from '../deps.js'
import { createPublicRpc, hasSandboxChain, publicRpcPath } from '../sandbox/index.js'

/**
 * `POST /dev/rpc` on the Sandbox control plane: the Sandbox chain's JSON-RPC for buyers and wallets (the `rpc_url` of
 * `GET /config/local-dev` on svc serve), public like that route and like any testnet's RPC, guarded as the paywall's
 * RPC is (server/sandbox/public-rpc.ts: reads, logs, gas and signed transactions only, never Anvil's own methods;
 * calls per minute per client address). On a team Sandbox process that does not own the chain, the owner's.
 * Mounted before the control plane's JSON parser: the body goes to the chain as it came.
 */
export function createChainRpcRoutes(deps: ServerDeps): Router {
  const router = Router()
  const rpc = createPublicRpc(deps, { name: "svc's Sandbox RPC" })
  router.all(publicRpcPath, async (req, res) => {
    if (req.hostEnvironment !== 'development' || !hasSandboxChain(deps))
      throw new NotFoundError(`svc's Sandbox RPC is served at ${controlUrl(deps.hosts, 'development')}${publicRpcPath}`)
    await rpc.serve(req, res, req.ip ?? req.socket.remoteAddress ?? 'unknown')
  })
  return router
}
