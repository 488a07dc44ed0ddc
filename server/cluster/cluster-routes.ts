import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { NextFunction, Request, Response } from 'express'
import { sandboxChainMoving } from '../../core/errors.js'
import { routeHost } from '../../core/hosts.js'
import type { ClusterDeps } from './deps.js'
import type { ChainServices } from '../../chain/services.js'
import { chainFactsOf } from './chain-facts.js'
import {
  clusterChainPath,
  clusterFacilitatorPath,
  clusterFaucetPath,
  clusterRpcPath,
  clusterSecret,
  clusterSettlingPath,
  fromCluster,
  movingRetryAfterSeconds,
} from './cluster-secret.js'

/**
 * The control routes that act on the Sandbox chain (whatever needs `deps.chain`): the Sandbox wallet and its funding,
 * balances, the faucet, faults, chain restart, snapshots and time travel, the facilitator's bazaar catalog
 * (`/dev/bazaar`: server/control/bazaar-catalog.ts), and an escrow payment's capture, void and refund (its owner's
 * facilitator relays them; one at a time per payment there: server/control/payments.ts). Not `/config/local-dev` nor `/dev/rpc`:
 * each process answers those itself (its own public RPC URL, relayed to the owner's chain: server/sandbox/public-rpc.ts).
 */
const chainRoute =
  /^\/(?:dev\/(?:faucet|balances|faults|chain\/restart|snapshots|time|bazaar)(?:\/|$)|sandbox-wallet(?:\/|$)|payments\/[^/]+\/(?:capture|void|refund)\/?$)/

/** Marks a request one process forwarded to the chain owner, so a stale view never forwards it on again. */
const forwardedHeader = 'x-svc-forwarded-to-owner'

/** Hop-by-hop headers a proxy does not pass on (RFC 9110 §7.6.1). */
const hopByHop = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade'])

function moving(res: ServerResponse) {
  if (res.headersSent) return void res.destroy()
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'retry-after': String(movingRetryAfterSeconds),
    'cache-control': 'no-store',
  })
  res.end(JSON.stringify({ error: sandboxChainMoving }))
}

/** Sends `req` to `target` as it is (method, headers, body), plus `extra` headers, and its answer back unchanged. */
function pipeTo(target: URL, req: IncomingMessage, res: ServerResponse, extra: Record<string, string>) {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !hopByHop.has(name)) headers[name] = value
  Object.assign(headers, extra)
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest
  const outgoing = send(target, { method: req.method, headers }, (answer) => {
    const back: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !hopByHop.has(name)) back[name] = value
    res.writeHead(answer.statusCode ?? 502, back)
    answer.pipe(res)
    answer.on('error', () => res.destroy())
  })
  // The owner cannot be reached (killed; its successor not yet up): 503 "moving", never a wrong verdict.
  outgoing.on('error', () => moving(res))
  req.pipe(outgoing)
}

export type ClusterRoutesOptions = {
  /** The paywall's demo faucet (server/sandbox/demo-faucet.ts's `demoFaucet`), passed in: sandbox/ stands above cluster/. */
  faucet: (chain: ChainServices, req: Request) => Promise<unknown>
}

/**
 * `svc serve --sandbox-chain shared`, before the host routing (server/app.ts):
 * - on the chain owner, the routes the other processes reach it by, with the cluster secret only (anyone else falls
 *   through to the hosts, as if they did not exist): `/_svc/cluster/facilitator/*` (the Sandbox facilitator's
 *   routes, served in process, taking no fault: the caller's gateway took them), `/_svc/cluster/rpc` (its Anvil's JSON-RPC, which stays on loopback),
 *   `/_svc/cluster/chain` (what its chain is: chain-facts.ts), `/_svc/cluster/faucet` (the paywall's demo faucet) and
 *   `/_svc/cluster/settling` (whether its facilitator is settling an authorization: journal/dropped-settlement.ts);
 * - on the others, the control routes that need the chain, forwarded to the owner with the caller's credentials and
 *   answered with the owner's answer unchanged; 503 with Retry-After while no process owns the chain.
 * Why through the main listener: it is the one address every process already advertises and a load balancer may
 * route by; the facilitator and Anvil keep listening on loopback, reached through it, guarded by the secret.
 */
export function createClusterRoutes(deps: ClusterDeps, { faucet }: ClusterRoutesOptions) {
  const secret = clusterSecret(deps.secrets.jwtSecret)
  return (req: Request, res: Response, next: NextFunction) => {
    const view = deps.chainOwner
    if (!view) return next()
    if (req.path.startsWith('/_svc/cluster/') && fromCluster(req, secret)) {
      const chain = deps.chain
      if (!chain) return moving(res)
      if (req.path.startsWith(`${clusterFacilitatorPath}/`)) {
        req.url = req.url.slice(clusterFacilitatorPath.length)
        return chain.facilitator.gatewayApp(req, res, next)
      }
      if (req.path === clusterRpcPath) return pipeTo(new URL(chain.rpcUrl), req, res, {})
      if (req.path === clusterChainPath) return void res.json(chainFactsOf(chain))
      if (req.path === clusterSettlingPath) {
        const { authorizer, nonce } = req.query
        const settling =
          typeof authorizer !== 'string' || typeof nonce !== 'string' || chain.facilitator.isSettling(authorizer, nonce)
        return void res.json({ settling })
      }
      if (req.path === clusterFaucetPath && req.method === 'POST')
        return void faucet(chain, req).then((funded) => res.json(funded), next)
      return next()
    }
    if (deps.chain || !chainRoute.test(req.path) || routeHost(req.headers.host, deps.hosts).kind !== 'control')
      return next()
    const state = view.current()
    if (state.kind !== 'remote' || req.headers[forwardedHeader] !== undefined) return moving(res)
    pipeTo(new URL(req.originalUrl, state.url), req, res, { [forwardedHeader]: '1' })
  }
}
