/** `mining: 'batched'` (chain/relay/miner.ts): Anvil mines on its own no more; every ready transaction still gets mined. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseEther } from 'viem'
import { startChain, type SandboxChain } from '../../../chain/sandbox-chain.js'
import { newAccount } from '../../helpers/payments.js'

let chain: SandboxChain
beforeAll(async () => {
  // The chain kit installs its contracts with transactions: they are mined by the miner too.
  chain = await startChain({ mining: 'batched' })
})
afterAll(() => chain?.stop())

describe('batched mining', () => {
  test('a lone transaction is mined, and transactions sent together share blocks', async () => {
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
    expect(new Set(receipts.map((receipt) => receipt.blockNumber)).size).toBeLessThan(20)
  })
})
