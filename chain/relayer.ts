import type { FacilitatorEvmSigner } from '@x402/evm'
import { encodeFunctionData, isAddressEqual, recoverTypedDataAddress, type Abi, type Address, type Hex } from 'viem'
import type { SandboxChain } from './chain.js'
import { createTxSender } from './tx-sender.js'

const emptyCodeTtlMs = 1_000
/** Signature checks remembered (a payment is checked at verify and again at settle). */
const verifiedMemory = 4_096

/**
 * The facilitator's signer: the relayer account of the sandbox chain, shaped as `@x402/evm` wants it.
 *
 * Compared with `toFacilitatorEvmSigner(walletClient.extend(publicActions))` it does the same calls with fewer
 * round trips: contract code is cached (code at an address with code never changes; an empty answer is kept for a
 * second), transactions are signed locally with an in-memory nonce, and receipts are polled every few
 * milliseconds instead of viem's block polling. A signature of an address without code (an EOA) is checked by
 * recovering its signer locally, as the token's own check does for such an address, instead of viem's ERC-6492
 * `eth_call`; contracts (ERC-1271 wallets) still go through viem. Caches and the nonce are dropped when the chain
 * restarts.
 */
export function createRelayerSigner(chain: SandboxChain): FacilitatorEvmSigner & { reset(): void } {
  const { client } = chain
  const sender = createTxSender({ client, account: chain.accounts.relayer, chainId: chain.chainId })
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

  const verified = new Map<string, boolean>()

  /** Whether `args.signature` is `args.address`'s over the typed data: recovered locally for an EOA, remembered. */
  async function verifyTypedData(args: Parameters<typeof client.verifyTypedData>[0]): Promise<boolean> {
    const code = await getCode(args.address)
    if (code && code !== '0x') return client.verifyTypedData(args)
    const key = stableKey(args)
    const known = verified.get(key)
    if (known !== undefined) return known
    let valid: boolean
    try {
      valid = isAddressEqual(await recoverTypedDataAddress(args as Parameters<typeof recoverTypedDataAddress>[0]), args.address)
    } catch {
      valid = false
    }
    verified.set(key, valid)
    if (verified.size > verifiedMemory) verified.delete(verified.keys().next().value!)
    return valid
  }

  async function estimateGas(to: Address, data: Hex): Promise<bigint> {
    // Like viem's writeContract: a transaction that would revert throws here with its revert reason,
    // which the scheme maps to a specific reason code, and no failing transaction is sent.
    const gas = await client.estimateGas({ account: sender.address, to, data })
    return (gas * 12n) / 10n
  }

  return {
    getAddresses: () => [sender.address],
    readContract: (args) =>
      client.readContract({ ...args, abi: args.abi as Abi, args: args.args as unknown[] } as Parameters<typeof client.readContract>[0]),
    verifyTypedData: (args) => verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    async writeContract(args) {
      let data = encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args })
      if (args.dataSuffix) data = `${data}${args.dataSuffix.slice(2)}`
      const gas = args.gas ?? (await estimateGas(args.address, data))
      return sender.send({ to: args.address, data, gas })
    },
    async sendTransaction(args) {
      return sender.send({ to: args.to, data: args.data, gas: await estimateGas(args.to, args.data) })
    },
    async waitForTransactionReceipt(args) {
      return sender.waitForReceipt(args.hash, args.timeout)
    },
    getCode: (args) => getCode(args.address),
    reset() {
      sender.reset()
      codeCache.clear()
      verified.clear()
    },
  }
}

/** The typed data and signature as one string (bigints as decimal, keys in order): what a verdict is remembered by. */
function stableKey(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    typeof item === 'bigint'
      ? `${item}n`
      : item && typeof item === 'object' && !Array.isArray(item)
        ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1)))
        : item,
  )
}
