/**
 * Anvil's pool can hold a transaction that waits for a nonce already mined (foundry-rs/foundry#10122): automine
 * checked it against the chain just before the block with the nonce before it, and put it in the pool just after.
 * The state is built here without the race: the transaction is sent one nonce ahead, then the chain's nonce is moved
 * past the gap (`anvil_setNonce`), which mines nothing, so nothing tells the pool. The guard must get it mined.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { parseEther } from 'viem'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'
import { newAccount } from '../../helpers/payments.js'

let chain: SandboxChain
beforeAll(async () => {
  chain = await startChain()
})
afterAll(() => chain?.stop())

const txpoolStatus = async () => {
  const status = await chain.client.request({ method: 'txpool_status' as never })
  return {
    pending: Number((status as { pending: string }).pending),
    queued: Number((status as { queued: string }).queued),
  }
}

describe('pool guard', () => {
  test.each(['eip1559', 'legacy'] as const)(
    '%s transactions left queued for a nonce already mined are sent again and mined',
    async (type) => {
      const sender = newAccount()
      await chain.testClient.setBalance({ address: sender.address, value: parseEther('1') })
      const fees =
        type === 'legacy'
          ? { gasPrice: 10_000_000_000n }
          : { maxFeePerGas: 10_000_000_000n, maxPriorityFeePerGas: 1_000_000n }
      const send = async (nonce: number) =>
        chain.client.sendRawTransaction({
          serializedTransaction: await sender.signTransaction({
            type,
            chainId: chain.chainId,
            nonce,
            to: sender.address,
            gas: 21_000n,
            ...fees,
          } as never),
        })
      // Nonces 1 and 2 wait for nonce 0, which never comes: the chain's nonce moves on instead.
      const hashes = [await send(1), await send(2)]
      expect(await txpoolStatus()).toEqual({ pending: 0, queued: 2 })
      await chain.testClient.setNonce({ address: sender.address, nonce: 1 })

      const receipts = await Promise.all(
        hashes.map((hash) => chain.client.waitForTransactionReceipt({ hash, timeout: 5_000 })),
      )
      expect(receipts.map((receipt) => receipt.status)).toEqual(['success', 'success'])
      expect(await txpoolStatus()).toEqual({ pending: 0, queued: 0 })
    },
  )
})
