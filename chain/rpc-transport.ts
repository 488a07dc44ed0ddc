import { custom, http, type Chain, type EIP1193RequestFn, type Transport } from 'viem'

/**
 * An HTTP transport to a local node that batches only under load: a lone request goes straight out (no added
 * latency), while requests made while others are in flight are batched into one JSON-RPC call, which saves the
 * HTTP overhead that dominates on Anvil when many payments settle at once.
 */
export function createRpcTransport(rpcUrl: string, chain: Chain): Transport {
  // Network-level failures (a dropped keep-alive connection) are retried; the sender treats a re-sent
  // transaction the node already has as sent.
  const options = { retryCount: 2, retryDelay: 20, timeout: 30_000 } as const
  const direct = http(rpcUrl, options)({ chain })
  const batched = http(rpcUrl, { ...options, batch: { wait: 0, batchSize: 100 } })({ chain })
  let inFlight = 0
  const request = (async (args: Parameters<EIP1193RequestFn>[0]) => {
    const target = inFlight > 0 ? batched : direct
    inFlight += 1
    try {
      return await target.request(args as never)
    } finally {
      inFlight -= 1
    }
  }) as EIP1193RequestFn
  return custom({ request }, { retryCount: 0, key: 'svc-rpc', name: 'svc RPC' })
}
