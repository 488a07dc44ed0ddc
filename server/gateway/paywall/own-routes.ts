import type { Request, Response } from 'express'
import { getAddress, isAddress, type Address } from 'viem'
import { BadRequestError, NotFoundError, TooManyRequestsError } from '../../../core/errors.js'
import type { ApiRow } from '../../db/tables.js'
import type { ServerDeps } from '../../deps.js'
import { createLimiter } from '../../throttle.js'
import { paywallBundle } from './bundle-file.js'
import { paywallPaths } from './paywall-state.js'

/** What one faucet click sends the demo wallet. */
export const demoFaucetUsdc = '10'

/**
 * The JSON-RPC methods the paywall page and a wallet pointed at `/__svc/rpc` need: reads, gas estimates and sending
 * a signed transaction. Never Anvil's own (`anvil_*`, `evm_*`: minting, time travel) nor signing by the node: the
 * gateway host may face the internet, so only what any public RPC answers goes through.
 */
const rpcMethods = new Set([
  'eth_chainId',
  'net_version',
  'eth_blockNumber',
  'eth_getBalance',
  'eth_call',
  'eth_estimateGas',
  'eth_gasPrice',
  'eth_maxPriorityFeePerGas',
  'eth_feeHistory',
  'eth_getTransactionCount',
  'eth_getCode',
  'eth_getBlockByNumber',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_sendRawTransaction',
])
const rpcBodyLimit = 64 * 1024
const rpcBatchLimit = 20

async function readBody(req: Request, limit: number): Promise<string> {
  let size = 0
  const chunks: Buffer[] = []
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) throw new BadRequestError(`the body is larger than ${limit} bytes`)
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** Counts a request of the client's address against `limiter`; past it, a 429. */
async function limit(limiter: ReturnType<typeof createLimiter>, req: Request, message: string) {
  try {
    await limiter.consume(req.socket.remoteAddress ?? 'unknown')
  } catch {
    throw new TooManyRequestsError(`${message}; try again in a minute`, 60)
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new BadRequestError('the body is not JSON')
  }
}

/**
 * svc's own routes on every gateway host, for the paywall page: its script, and on Sandbox APIs only the chain's RPC
 * (a read-mostly allowlist) and the demo wallet's faucet (a fixed amount, rate-limited per client address). A
 * production API answers 404 for the RPC and the faucet: the page never offers them there.
 */
export function createPaywallOwnRoutes(deps: ServerDeps) {
  const faucetLimiter = createLimiter({ limit: 10, windowMs: 60_000 })
  // A page makes a few calls per payment; a flood from one address is not a visitor.
  const rpcLimiter = createLimiter({ limit: 1200, windowMs: 60_000 })

  /** The Sandbox chain of a Sandbox API; a 404 for a production API or a server without chain. */
  function sandboxChainOf(api: ApiRow, what: string) {
    if (api.environment !== 'development' || !deps.chain)
      throw new NotFoundError(`${what} is served on Sandbox APIs only (${api.slug} is a production API)`)
    return deps.chain
  }

  async function rpc(req: Request, res: Response, api: ApiRow) {
    const chain = sandboxChainOf(api, "svc's RPC")
    if (req.method !== 'POST') throw new BadRequestError('POST a JSON-RPC request')
    await limit(rpcLimiter, req, "svc's paywall RPC answers 1200 calls a minute per address")
    const text = await readBody(req, rpcBodyLimit)
    const body = parseJson(text)
    const calls = Array.isArray(body) ? body : [body]
    if (calls.length === 0 || calls.length > rpcBatchLimit)
      throw new BadRequestError(`a batch holds 1 to ${rpcBatchLimit} calls`)
    for (const call of calls) {
      const method = (call as { method?: unknown } | null)?.method
      if (typeof method !== 'string' || !rpcMethods.has(method)) {
        res.json({
          jsonrpc: '2.0',
          id: (call as { id?: unknown } | null)?.id ?? null,
          error: { code: -32601, message: `svc's paywall RPC does not serve ${String(method).slice(0, 64)}` },
        })
        return
      }
    }
    const answer = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: text,
    }).catch(() => undefined)
    if (!answer) {
      res.status(503).json({ error: 'the Sandbox chain did not answer; try again in a moment' })
      return
    }
    res
      .status(answer.status)
      .type('application/json')
      .send(Buffer.from(await answer.arrayBuffer()))
  }

  async function faucet(req: Request, res: Response, api: ApiRow) {
    const chain = sandboxChainOf(api, "svc's faucet")
    if (req.method !== 'POST') throw new BadRequestError('POST {"address": "0x…"}')
    const body = parseJson(await readBody(req, 1024)) as { address?: unknown } | null
    const address = body?.address
    if (typeof address !== 'string' || !isAddress(address, { strict: false }))
      throw new BadRequestError('address must be an 0x address of 40 hex digits')
    await limit(faucetLimiter, req, 'the demo faucet gives 10 times a minute per address')
    const funded = await chain.manager.fund(getAddress(address) as Address, 'usdc', demoFaucetUsdc)
    res.json({
      address: funded.address,
      funded_usdc: demoFaucetUsdc,
      transaction: funded.transactions.usdc ?? null,
      balances: funded.balances,
    })
  }

  return {
    /** Whether `path` is one of svc's own (they shadow an upstream's routes of the same path). */
    owns: (path: string) => path.startsWith('/__svc/'),
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
