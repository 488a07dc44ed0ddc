/**
 * `mining: 'batched'` (chain/relay/miner.ts): Anvil mines on its own no more; every ready transaction still gets mined,
 * and transactions sent together share fewer blocks than Anvil's automine gives them.
 */
import { afterAll, describe, expect, test } from 'vitest'
import { parseEther } from 'viem'
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
