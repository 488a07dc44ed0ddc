import type { FacilitatorEvmSigner } from '@x402/evm'
import { encodeFunctionData, type Abi, type Address, type Hash, type Hex, type TransactionReceipt } from 'viem'
import { canonicalJson } from '../core/canonical-json.js'
import type { SandboxChain } from './chain.js'
import { createTxSender } from './tx-sender.js'

const emptyCodeTtlMs = 1_000
/** Transfer simulations remembered at most. */
const simulatedMemory = 4_096
/**
 * How long a transfer that simulated without a revert is taken as good: the settlement right after the verification
 * does not simulate it again. Should it revert after all (its payer spent the balance meanwhile), the reverted
 * transaction is explained by its revert reason all the same.
 */
const simulatedTtlMs = 10_000

/**
 * The facilitator's signer: the relayer account of the sandbox chain, shaped as `@x402/evm` wants it.
 *
 * Compared with `toFacilitatorEvmSigner(walletClient.extend(publicActions))` it does the same calls with fewer
 * round trips: contract code is cached (code at an address with code never changes; an empty answer is kept for a
 * second), and a transaction goes out as one `eth_sendTransactionSync` from the relayer (an Anvil dev account, so
 * unlocked; chain/tx-sender.ts): Anvil estimates the gas, signs, mines and answers the receipt in one round trip,
 * while the nonces are handed out here in order (Anvil's own assignment races between concurrent sends). A transfer
 * that reverted all the same is explained by its revert reason. Caches and the nonce are dropped when the chain
 * restarts.
 */
export function createRelayerSigner(chain: SandboxChain): FacilitatorEvmSigner & { reset(): void } {
  const { client } = chain
  const sender = createTxSender({
    client,
    account: chain.accounts.relayer,
    chainId: chain.chainId,
    unlocked: true,
  })
  const codeCache = new Map<string, { code: Hex | undefined; until: number } | Promise<Hex | undefined>>()

  async function getCode(address: Address): Promise<Hex | undefined> {
    const key = address.toLowerCase()
    const cached = codeCache.get(key)
    if (cached instanceof Promise) return cached
    if (cached && cached.until > Date.now()) return cached.code
    const pending = client.getCode({ address })
    codeCache.set(key, pending)
    try {
      const code = await pending
      const hasCode = !!code && code !== '0x'
      codeCache.set(key, { code, until: hasCode ? Number.POSITIVE_INFINITY : Date.now() + emptyCodeTtlMs })
      return code
    } catch (error) {
      codeCache.delete(key)
      throw error
    }
  }

  const simulated = new Map<string, number>()

  /**
   * A contract read. A `transferWithAuthorization` simulation that passed is remembered for {@link simulatedTtlMs} and
   * answers the next simulation of the same transfer once (the settlement's, right after the verification).
   */
  async function readContract(args: Parameters<FacilitatorEvmSigner['readContract']>[0]): Promise<unknown> {
    // From the relayer, as its transaction would be (upto's proxy only lets the witness's facilitator settle).
    const call = { ...args, account: sender.address, abi: args.abi as Abi, args: args.args as unknown[] } as Parameters<typeof client.readContract>[0]
    if (args.functionName !== 'transferWithAuthorization') return client.readContract(call)
    const key = canonicalJson([args.address, args.args])
    const until = simulated.get(key)
    simulated.delete(key)
    if (until !== undefined && until > Date.now()) return undefined
    const result = await client.readContract(call)
    simulated.set(key, Date.now() + simulatedTtlMs)
    if (simulated.size > simulatedMemory) simulated.delete(simulated.keys().next().value!)
    return result
  }

  /**
   * A mined transaction reverted: the same call at the block before says why (its revert reason, which the scheme maps
   * to a reason code, as for a simulation that failed).
   */
  async function explainRevert(to: Address, data: Hex, receipt: TransactionReceipt): Promise<never> {
    await client.call({ account: sender.address, to, data, blockNumber: receipt.blockNumber - 1n })
    throw new Error(`the settlement transaction ${receipt.transactionHash} reverted`)
  }

  /** Sends from the relayer (mined at once); a transfer that reverted is explained by its revert reason. */
  async function send(to: Address, data: Hex, gas: bigint | undefined): Promise<Hash> {
    const hash = await sender.send({ to, data, gas })
    const receipt = sender.minedReceipt(hash)
    if (receipt?.status === 'reverted') return explainRevert(to, data, receipt)
    return hash
  }

  return {
    getAddresses: () => [sender.address],
    readContract,
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    async writeContract(args) {
      let data = encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args })
      if (args.dataSuffix) data = `${data}${args.dataSuffix.slice(2)}`
      // A transfer being sent is simulated for real the next time (a replay is refused by the chain).
      if (args.functionName === 'transferWithAuthorization') simulated.delete(canonicalJson([args.address, args.args]))
      return send(args.address, data, args.gas)
    },
    sendTransaction: (args) => send(args.to, args.data, undefined),
    waitForTransactionReceipt: (args) => sender.waitForReceipt(args.hash, args.timeout),
    getCode: (args) => getCode(args.address),
    reset() {
      sender.reset()
      codeCache.clear()
      simulated.clear()
    },
  }
}
