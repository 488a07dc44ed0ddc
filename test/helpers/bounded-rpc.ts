/**
 * A JSON-RPC proxy in front of a real node that answers `eth_getLogs` as public RPC providers do: a range wider than
 * `maxBlocks` (or one ending at `latest`) is refused with an error. It records every range it was asked, so a test
 * sees that recovery reads a real network's logs in bounded steps.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type BoundedRpc = {
  url: string
  /** The `[fromBlock, toBlock]` of every eth_getLogs call, refused ones included. */
  ranges: [bigint, bigint][]
  /** Every call's method, and when it was answered (Date.now()). */
  calls: { method: string; at: number }[]
  stop(): Promise<void>
}

type RpcCall = { id: unknown; method: string; params?: unknown[] }

export async function startBoundedRpc(target: string, maxBlocks: number): Promise<BoundedRpc> {
  const ranges: [bigint, bigint][] = []
  const calls: { method: string; at: number }[] = []
  /** An error answer for a call the proxy refuses, else undefined. */
  const refusal = (call: RpcCall) => {
    if (call.method !== 'eth_getLogs') return undefined
    const filter = (call.params?.[0] ?? {}) as { fromBlock?: string; toBlock?: string }
    if (!filter.fromBlock?.startsWith('0x') || !filter.toBlock?.startsWith('0x'))
      return { jsonrpc: '2.0', id: call.id, error: { code: -32600, message: 'give fromBlock and toBlock as numbers' } }
    const range: [bigint, bigint] = [BigInt(filter.fromBlock), BigInt(filter.toBlock)]
    ranges.push(range)
    if (range[1] - range[0] + 1n > BigInt(maxBlocks))
      return {
        jsonrpc: '2.0',
        id: call.id,
        error: { code: -32600, message: `block range too large (max ${maxBlocks})` },
      }
    return undefined
  }
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const asked = JSON.parse(body) as RpcCall | RpcCall[]
    const batch = Array.isArray(asked) ? asked : [asked]
    const answered = () => {
      for (const call of batch) calls.push({ method: call.method, at: Date.now() })
    }
    const refused = batch.map(refusal).find((answer) => answer !== undefined)
    if (refused && !Array.isArray(asked)) {
      answered()
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(refused))
    }
    const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    const text = await answer.text()
    answered()
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    ranges,
    calls,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
