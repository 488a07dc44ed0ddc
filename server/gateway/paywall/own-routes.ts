import type { Request, Response } from 'express'
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../../../core/errors.js'
import type { ApiRow } from '../../db/index.js'
import type { ServerDeps } from '../../deps.js'
import { createPublicRpc, demoFaucetAddress, fundDemoWallet, hasSandboxChain } from '../../sandbox/index.js'
import { createLimiter } from '../../serve/index.js'
import { paywallBundle } from './bundle-file.js'
import { paywallPaths } from './paywall-state.js'

/** Where svc's own routes begin: they shadow an upstream's routes of the same path. */
export const ownRoutesPrefix = '/__svc/'

/**
 * svc's own routes on every gateway host, for the paywall page: its script, and on Sandbox APIs only the chain's RPC
 * (a read-mostly allowlist: server/sandbox/public-rpc.ts) and the demo wallet's faucet (a fixed amount, rate-limited
 * per client address); on a team Sandbox process that does not own the chain, both reach the owner's. A production
 * API answers 404 for the RPC and the faucet: the page never offers them there.
 */
export function createPaywallOwnRoutes(deps: ServerDeps) {
  const faucetLimiter = createLimiter({ limit: 10, windowMs: 60_000 })
  const publicRpc = createPublicRpc(deps, { name: "svc's paywall RPC" })

  /** A 404 for a production API or a server without chain. */
  function sandboxOnly(api: ApiRow, what: string) {
    if (api.environment !== 'development' || !hasSandboxChain(deps))
      throw new NotFoundError(`${what} is served on Sandbox APIs only (${api.slug} is a production API)`)
  }

  async function rpc(req: Request, res: Response, api: ApiRow) {
    sandboxOnly(api, "svc's RPC")
    await publicRpc.serve(req, res, req.socket.remoteAddress ?? 'unknown')
  }

  async function faucet(req: Request, res: Response, api: ApiRow) {
    sandboxOnly(api, "svc's faucet")
    if (req.method !== 'POST') throw new BadRequestError('POST {"address": "0x…"}')
    const address = await demoFaucetAddress(req)
    try {
      await faucetLimiter.consume(req.socket.remoteAddress ?? 'unknown')
    } catch {
      throw new TooManyRequestsError('the demo faucet gives 10 times a minute per address; try again in a minute', 60)
    }
    res.json(await fundDemoWallet(deps, address))
  }

  return {
    async serve(req: Request, res: Response, api: ApiRow): Promise<void> {
      switch (req.path) {
        case paywallPaths.script: {
          const bundle = paywallBundle()
          const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))
          res.status(200).set({
            'content-type': 'text/javascript; charset=utf-8',
            'cache-control': 'public, max-age=300',
            vary: 'accept-encoding',
          })
          if (gzip) res.set('content-encoding', 'gzip')
          res.send(gzip ? bundle.gzip : bundle.raw)
          return
        }
        case paywallPaths.rpc:
          return rpc(req, res, api)
        case paywallPaths.faucet:
          return faucet(req, res, api)
        default:
          throw new NotFoundError(`no svc route ${req.path.slice(0, 64)}`)
      }
    },
  }
}
