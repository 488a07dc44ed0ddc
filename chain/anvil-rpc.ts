/**
 * A bare JSON-RPC call to Anvil over HTTP, for svc's own housekeeping beside viem's client (the miner, the pool
 * guard): one request, no retries, no batching, bounded in time, the node's error thrown with the method's name.
 */
export function createAnvilRpc(rpcUrl: string, options: { timeoutMs?: number | undefined } = {}) {
  const { timeoutMs = 5_000 } = options
  let id = 0
  return async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const answer = (await response.json()) as { result?: T; error?: { message: string } }
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result as T
  }
}
