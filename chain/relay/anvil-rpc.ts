import { Pool, type Dispatcher } from 'undici'
import { custom, HttpRequestError, RpcRequestError, TimeoutError, type EIP1193RequestFn, type Transport } from 'viem'

/**
 * JSON-RPC over HTTP to svc's local node on undici's connection pool, not `fetch`: a call costs about 40 µs of CPU
 * against 200–300 µs through `fetch` (its Request, Response and stream objects), and a paid request makes four or
 * five of them. One pool per node URL is shared by svc's viem transport ({@link createRpcTransport}), the batch miner
 * and the pool guard; an Anvil restarted on the same port is reached again by new connections.
 */
const pools = new Map<string, Pool>()

/** Keep-alive connections per node; more requests than this wait for a free one. */
const connectionsPerNode = 32

function poolFor(origin: string): Pool {
  let pool = pools.get(origin)
  if (!pool) {
    pool = new Pool(origin, { connections: connectionsPerNode, keepAliveTimeout: 10_000 })
    pools.set(origin, pool)
  }
  return pool
}

/** The node's JSON-RPC error answer to one call. */
export type JsonRpcErrorBody = { code: number; message: string; data?: unknown }

/** How one HTTP exchange with the node ended, for the caller to turn into its own error. */
export class NodeHttpError extends Error {
  constructor(
    message: string,
    /** The HTTP status when the node answered with a non-JSON-RPC failure; undefined when nothing came back. */
    readonly status: number | undefined,
    /** The exchange ran out of time. */
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'NodeHttpError'
  }
}

/**
 * Posts one JSON-RPC body and answers the parsed JSON-RPC response (`result` or `error`). A failure to reach the node,
 * a non-2xx answer or a timeout throws {@link NodeHttpError}.
 */
export function createJsonRpcPoster(rpcUrl: string, options: { timeoutMs: number }) {
  const url = new URL(rpcUrl)
  const path = `${url.pathname}${url.search}`
  const { timeoutMs } = options
  return async function post<T>(body: string): Promise<{ result?: T; error?: JsonRpcErrorBody }> {
    let response: Dispatcher.ResponseData
    try {
      response = await poolFor(url.origin).request({
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
      })
    } catch (error) {
      const code = (error as { code?: string }).code
      throw new NodeHttpError(
        `${rpcUrl}: ${(error as Error).message}`,
        undefined,
        code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT',
        { cause: error },
      )
    }
    if (response.statusCode < 200 || response.statusCode > 299) {
      const text = await response.body.text().catch(() => '')
      throw new NodeHttpError(
        `${rpcUrl}: HTTP ${response.statusCode} ${text.slice(0, 200)}`.trim(),
        response.statusCode,
        false,
      )
    }
    try {
      return (await response.body.json()) as { result?: T; error?: JsonRpcErrorBody }
    } catch (error) {
      const code = (error as { code?: string }).code
      throw new NodeHttpError(`${rpcUrl}: ${(error as Error).message}`, undefined, code === 'UND_ERR_BODY_TIMEOUT', {
        cause: error,
      })
    }
  }
}

/**
 * A bare JSON-RPC call to Anvil, for svc's own housekeeping beside viem's client (the miner, the pool guard): one
 * request, no retries, no batching, bounded in time, the node's error thrown with the method's name.
 */
export function createAnvilRpc(rpcUrl: string, options: { timeoutMs?: number | undefined } = {}) {
  const post = createJsonRpcPoster(rpcUrl, { timeoutMs: options.timeoutMs ?? 5_000 })
  let id = 0
  return async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const answer = await post<T>(JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }))
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result as T
  }
}

/**
 * viem's transport to svc's local node, on undici's connection pool ({@link createJsonRpcPoster}) instead of viem's
 * `http` (`fetch`): each request goes straight out on a keep-alive connection of its own, about a fifth of the CPU per call.
 * Errors are viem's own (RpcRequestError for the node's JSON-RPC error, HttpRequestError / TimeoutError for the
 * exchange), so viem maps them to its typed errors and retries network failures as it does over `http`; the sender
 * treats a re-sent transaction the node already has as sent.
 */
export function createRpcTransport(rpcUrl: string): Transport {
  const post = createJsonRpcPoster(rpcUrl, { timeoutMs: 30_000 })
  let id = 0
  const request = (async ({ method, params }: { method: string; params?: unknown }) => {
    const body = { jsonrpc: '2.0', id: ++id, method, params: params ?? [] }
    let answer: Awaited<ReturnType<typeof post>>
    try {
      answer = await post(JSON.stringify(body))
    } catch (error) {
      const { status, timedOut } = error as { status?: number; timedOut?: boolean }
      if (timedOut) throw new TimeoutError({ body, url: rpcUrl })
      throw new HttpRequestError({
        body,
        url: rpcUrl,
        status,
        details: (error as Error).message,
        cause: error as Error,
      })
    }
    if (answer.error) throw new RpcRequestError({ body, error: answer.error, url: rpcUrl })
    return answer.result
  }) as EIP1193RequestFn
  return custom({ request }, { key: 'svc-rpc', name: 'svc RPC', retryCount: 2, retryDelay: 20 })
}
