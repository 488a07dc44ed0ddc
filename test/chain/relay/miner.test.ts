/**
 * `mining: 'batched'` (chain/relay/miner.ts): Anvil mines on its own no more; every ready transaction still gets mined,
 * and transactions sent together share fewer blocks than Anvil's automine gives them.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { parseEther } from 'viem'
import { Pool } from 'undici'
import { createTxSender } from '../../../chain/relay/tx-sender.js'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'
import { newAccount } from '../../helpers/payments.js'

const chains: SandboxChain[] = []
afterAll(() => Promise.all(chains.map((chain) => chain.stop())))

/** One lone transaction, then 20 sent at once: all mined; how many blocks the 20 took. */
async function blocksFor20(mining: 'batched' | 'auto') {
  // The chain kit installs its contracts with transactions: they are mined by the miner too.
  const chain = await startChain({ mining })
  chains.push(chain)
  const sender = newAccount()
  await chain.testClient.setBalance({ address: sender.address, value: parseEther('1') })
  const sign = (nonce: number) =>
    sender.signTransaction({
      type: 'eip1559',
      chainId: chain.chainId,
      nonce,
      to: sender.address,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    })
  const lone = await chain.client.sendRawTransaction({ serializedTransaction: await sign(0) })
  expect((await chain.client.waitForTransactionReceipt({ hash: lone, timeout: 5_000 })).status).toBe('success')

  const raws = await Promise.all(Array.from({ length: 20 }, (_, i) => sign(i + 1)))
  const hashes = await Promise.all(
    raws.map((serializedTransaction) => chain.client.sendRawTransaction({ serializedTransaction })),
  )
  const receipts = await Promise.all(
    hashes.map((hash) => chain.client.waitForTransactionReceipt({ hash, timeout: 5_000 })),
  )
  expect(receipts.every((receipt) => receipt.status === 'success')).toBe(true)
  return new Set(receipts.map((receipt) => receipt.blockNumber)).size
}

describe('batched mining', () => {
  test('a lone transaction is mined, and transactions sent together share fewer blocks than with automine', async () => {
    const batched = await blocksFor20('batched')
    const auto = await blocksFor20('auto')
    expect(batched).toBeLessThan(auto)
  })
})

/**
 * Counts svc's JSON-RPC calls to `chain` by method: every one goes out on undici's Pool (chain/relay/anvil-rpc.ts);
 * the chains of other tests, still running, are not counted.
 */
function countCalls(chain: SandboxChain) {
  const calls: Record<string, number> = {}
  const request = Pool.prototype.request
  const origin = new URL(chain.rpcUrl).origin
  const originOf = (pool: object) =>
    String((pool as Record<symbol, unknown>)[Object.getOwnPropertySymbols(pool).find((s) => s.description === 'url')!])
  Pool.prototype.request = function (this: Pool, options: { body?: unknown }, ...rest: unknown[]) {
    const method = typeof options.body === 'string' ? (JSON.parse(options.body) as { method?: string }).method : ''
    if (new URL(originOf(this)).origin === origin) calls[method ?? ''] = (calls[method ?? ''] ?? 0) + 1
    return (request as (...args: unknown[]) => unknown).call(this, options, ...rest)
  } as typeof request
  return { calls, restore: () => void (Pool.prototype.request = request) }
}

/** A sender of relayer `index` of `chain`, mining through its miner (as the facilitator's relayer does). */
const senderOf = (chain: SandboxChain, index: number) =>
  createTxSender({
    client: chain.client,
    account: chain.accounts.relayers[index]!,
    chainId: chain.chainId,
    mine: (sent) => chain.mine(sent),
    era: () => chain.era,
  })

describe('announced sends', () => {
  test("a transaction its sender announces is mined by the sender's call alone: Anvil's notification of it starts no second look at the pool", async () => {
    const chain = await startChain({ mining: 'batched' })
    chains.push(chain)
    const sender = senderOf(chain, 3)
    const { calls, restore } = countCalls(chain)
    const before = await chain.client.getBlockNumber()
    const started = performance.now()
    let tookMs = 0
    try {
      for (let i = 0; i < 20; i++) {
        const hash = await sender.send({ to: sender.address, value: 1n, gas: 21_000n })
        expect((await sender.waitForReceipt(hash)).status).toBe('success')
        // The notification of the transaction comes in meanwhile (the WebSocket is not counted): given time to.
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      tookMs = performance.now() - started
    } finally {
      restore()
    }
    expect(await chain.client.getBlockNumber()).toBe(before + 20n)
    expect(calls.evm_mine).toBe(20)
    // The pool guard looks at the pool every 200 ms (chain/anvil/anvil.ts), the miner's sweep every second: those
    // looks, and no look per transaction.
    expect(calls.txpool_status ?? 0).toBeLessThanOrEqual(Math.ceil(tookMs / 200) + Math.ceil(tookMs / 1_000) + 1)
  })

  test("transactions mined in one block get their receipts from one eth_getBlockReceipts, the same receipts as each one's eth_getTransactionReceipt", async () => {
    const chain = await startChain({ mining: 'batched' })
    chains.push(chain)
    const senders = Array.from({ length: 8 }, (_, i) => senderOf(chain, i))
    const { calls, restore } = countCalls(chain)
    let hashes: `0x${string}`[]
    try {
      hashes = await Promise.all(senders.map((sender) => sender.send({ to: sender.address, value: 1n, gas: 21_000n })))
    } finally {
      restore()
    }
    const receipts = await Promise.all(hashes.map((hash, i) => senders[i]!.waitForReceipt(hash)))
    expect(receipts.every((receipt) => receipt.status === 'success')).toBe(true)
    const blocks = new Set(receipts.map((receipt) => receipt.blockNumber)).size
    expect(blocks).toBeLessThan(8)
    // A block of several: one call for its receipts. A block of one: its sender asks for its own.
    expect(calls.eth_getTransactionReceipt ?? 0).toBeLessThan(8)
    expect(calls.eth_getBlockReceipts ?? 0).toBeGreaterThanOrEqual(1)
    for (const [i, hash] of hashes.entries())
      expect(receipts[i]).toEqual(await chain.client.getTransactionReceipt({ hash }))
  })
})
