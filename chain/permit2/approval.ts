import { PERMIT2_ADDRESS } from '@x402/evm'
import { encodeFunctionData, maxUint256, numberToHex, type Address, type Hash } from 'viem'
import type { SandboxChain } from '../sandbox-chain.js'
import { sandboxUsdcAbi } from '../contracts/index.js'

/** Gas an `approve` may use (FiatToken's is ~46k). */
const approveGas = 100_000n

/**
 * Approves Permit2 to spend `owner`'s USDC without limit, as `owner` would (`approve(Permit2, 2^256-1)`): see
 * {@link approveFor}. Resolves with the mined transaction.
 */
export const approvePermit2For = (chain: SandboxChain, owner: Address): Promise<Hash> =>
  approveFor(chain, owner, PERMIT2_ADDRESS)

/**
 * Approves `spender` to spend `owner`'s USDC (without limit unless `amount` is given), as `owner` would, sent with
 * Anvil's `eth_sendUnsignedTransaction` (no key needed on a development chain): Permit2 for a Permit2 buyer, the
 * auth-capture operator for a receiver whose refunds svc relays. The approval's gas is added to the address first
 * when it holds too little ETH for it. Resolves with the mined transaction.
 */
export async function approveFor(
  chain: SandboxChain,
  owner: Address,
  spender: Address,
  amount: bigint = maxUint256,
): Promise<Hash> {
  const { client, testClient } = chain
  const [fees, balance] = await Promise.all([client.estimateFeesPerGas(), client.getBalance({ address: owner })])
  const cost = approveGas * fees.maxFeePerGas
  if (balance < cost)
    await testClient.request({
      method: 'anvil_addBalance' as never,
      params: [owner, numberToHex(cost - balance)] as never,
    })
  const hash = await testClient.sendUnsignedTransaction({
    from: owner,
    to: chain.usdc.address,
    data: encodeFunctionData({ abi: sandboxUsdcAbi, functionName: 'approve', args: [spender, amount] }),
    gas: approveGas,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  })
  const receipt = await client.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new Error(`the approval of ${spender} by ${owner} reverted (${hash})`)
  return hash
}
