import { custom, HttpRequestError, RpcRequestError, TimeoutError, type EIP1193RequestFn, type Transport } from 'viem'
import { createJsonRpcPoster } from './anvil-rpc.js'

/**
 * viem's transport to svc's local node, on undici's connection pool (chain/relay/anvil-rpc.ts) instead of viem's `http`
 * (`fetch`): each request goes straight out on a keep-alive connection of its own, about a fifth of the CPU per call.
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
