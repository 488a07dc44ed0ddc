import type { Request, Response } from 'express'
import {
  BadRequestError,
  sandboxChainMoving,
  ServiceUnavailableError,
  TooManyRequestsError,
} from '../../core/errors.js'
import { clusterRpcPath, movingRetryAfterSeconds } from '../cluster/index.js'
import type { SandboxDeps } from './deps.js'
import { createLimiter } from '../serve/index.js'

/**
 * The JSON-RPC methods svc's public Sandbox RPC serves (the paywall page's `/__svc/rpc`, the control plane's
 * `/dev/rpc`): reads, logs, gas estimates and sending a signed transaction. Never Anvil's own (`anvil_*`, `evm_*`:
 * minting, time travel; those are the admin's, through svc's routes) nor signing by the node: the route may face the
 * internet, so only what any public RPC answers goes through.
 */
const publicMethods = new Set([
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
  'eth_getStorageAt',
  'eth_getLogs',
  'eth_getBlockByNumber',
  'eth_getBlockByHash',
  'eth_getTransactionByHash',
  'eth_getTransactionReceipt',
  'eth_sendRawTransaction',
])
const bodyLimit = 64 * 1024
const batchLimit = 20

/**
 * The request's body as text, refused past `limit` bytes. A refused body is left unread and its answer closes the
 * connection: kept alive, the next request on it would wait behind the unread bytes until the server's keep-alive
 * timeout (a client's 1 MB body held its connection for 65 s).
 */
export function readBody(req: Request, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let size = 0
    const chunks: Buffer[] = []
    const stop = () => {
      req.off('data', onData).off('end', onEnd).off('error', onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      stop()
      req.pause()
      req.res?.setHeader('connection', 'close')
      reject(new BadRequestError(`the body is larger than ${limit} bytes`))
    }
    const onEnd = () => {
      stop()
      resolve(Buffer.concat(chunks).toString('utf8'))
    }
    const onError = (error: Error) => {
      stop()
      reject(error)
    }
    req.on('data', onData).on('end', onEnd).on('error', onError)
  })
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new BadRequestError('the body is not JSON')
  }
}

/** Where this process reaches the Sandbox chain's JSON-RPC. */
export type RpcEndpoint = { url: string; headers: Record<string, string> }

/**
 * The Sandbox chain's JSON-RPC as this process reaches it: its own Anvil, or on a team Sandbox process that does not
 * own the chain, the owner's through its listener (server/cluster/chain-owner-view.ts); undefined without either.
 */
export function sandboxRpcEndpoint(deps: Pick<SandboxDeps, 'chain' | 'chainOwner'>): RpcEndpoint | undefined {
  if (deps.chain) return { url: deps.chain.rpcUrl, headers: {} }
  return deps.chainOwner?.ownerRoute(clusterRpcPath)
}

/** Whether this process serves Sandbox chain routes at all (its own chain, or a team Sandbox's owner's). */
export const hasSandboxChain = (deps: Pick<SandboxDeps, 'chain' | 'chainOwner'>): boolean =>
  deps.chain !== undefined || deps.chainOwner !== undefined

export type PublicRpc = {
  /**
   * Answers a JSON-RPC request (one call or a batch) for the client at `client`: refused past the limit (429), a
   * method off the list answered with JSON-RPC's -32601, the rest passed to the chain and its answer back.
   */
  serve(req: Request, res: Response, client: string): Promise<void>
}

/** svc's public Sandbox RPC: `name` says which in its refusals; `perMinute` calls a minute per client address. */
export function createPublicRpc(
  deps: Pick<SandboxDeps, 'chain' | 'chainOwner'>,
  options: { name: string; perMinute?: number | undefined },
): PublicRpc {
  const { name, perMinute = 1200 } = options
  // A page or a buyer makes a few calls per payment; a flood from one address is not a visitor.
  const limiter = createLimiter({ limit: perMinute, windowMs: 60_000 })
  return {
    async serve(req, res, client) {
      if (req.method !== 'POST') throw new BadRequestError('POST a JSON-RPC request')
      try {
        await limiter.consume(client)
      } catch {
        throw new TooManyRequestsError(
          `${name} answers ${perMinute} calls a minute per address; try again in a minute`,
          60,
        )
      }
      const text = await readBody(req, bodyLimit)
      const body = parseJson(text)
      const calls = Array.isArray(body) ? body : [body]
      if (calls.length === 0 || calls.length > batchLimit)
        throw new BadRequestError(`a batch holds 1 to ${batchLimit} calls`)
      for (const call of calls) {
        const method = (call as { method?: unknown } | null)?.method
        if (typeof method !== 'string' || !publicMethods.has(method)) {
          res.json({
            jsonrpc: '2.0',
            id: (call as { id?: unknown } | null)?.id ?? null,
            error: { code: -32601, message: `${name} does not serve ${String(method).slice(0, 64)}` },
          })
          return
        }
      }
      const endpoint = sandboxRpcEndpoint(deps)
      const moving = () =>
        new ServiceUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
      if (!endpoint && deps.chainOwner) throw moving()
      if (!endpoint) throw new ServiceUnavailableError('the Sandbox chain is not running here')
      const answer = await fetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...endpoint.headers },
        body: text,
      }).catch(() => undefined)
      // The owner of a team Sandbox's chain went away (a takeover is under way): retry, as every chain route says.
      if (!answer || (deps.chainOwner && !deps.chain && answer.status >= 500)) {
        if (deps.chainOwner && !deps.chain) throw moving()
        throw new ServiceUnavailableError('the Sandbox chain did not answer; try again in a moment', {
          retryAfterSeconds: 1,
        })
      }
      res
        .status(answer.status)
        .type('application/json')
        .send(Buffer.from(await answer.arrayBuffer()))
    },
  }
}
