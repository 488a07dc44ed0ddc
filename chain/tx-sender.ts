import {
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem'

export type TxSenderOptions = {
  client: PublicClient
  account: LocalAccount
  chainId: number
  /** How long a receipt is awaited before giving up. @defaultValue 30_000 */
  receiptTimeoutMs?: number | undefined
}

export type TxRequest = { to: Address; data?: Hex | undefined; value?: bigint | undefined; gas: bigint }

export type TxSender = {
  address: Address
  /** Signs locally and broadcasts; nonces are assigned in order, one transaction at a time. */
  send(request: TxRequest): Promise<Hash>
  waitForReceipt(hash: Hash, timeoutMs?: number): Promise<TransactionReceipt>
  /** Forgets the cached nonce and fees (after a chain restart). */
  reset(): void
}

const feeTtlMs = 2_000

/**
 * A transaction sender for one local account on a local chain: a nonce kept in memory, fees cached for a
 * moment, signing done here and `eth_sendRawTransaction` sent straight away. viem's `sendTransaction` would
 * fill the same fields with three to four extra RPC calls per transaction.
 */
export function createTxSender(options: TxSenderOptions): TxSender {
  const { client, account, chainId, receiptTimeoutMs = 30_000 } = options
  let nonce: number | undefined
  let fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; at: number } | undefined
  let queue: Promise<unknown> = Promise.resolve()

  async function getFees() {
    if (fees && Date.now() - fees.at < feeTtlMs) return fees
    const block = await client.getBlock({ blockTag: 'latest' })
    const baseFee = block.baseFeePerGas ?? 1_000_000_000n
    const maxPriorityFeePerGas = 1_000_000n
    fees = { maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas, at: Date.now() }
    return fees
  }

  async function sendNow(request: TxRequest): Promise<Hash> {
    nonce ??= await client.getTransactionCount({ address: account.address, blockTag: 'pending' })
    const { maxFeePerGas, maxPriorityFeePerGas } = await getFees()
    const serialized = await account.signTransaction!({
      type: 'eip1559',
      chainId,
      nonce,
      to: request.to,
      data: request.data,
      value: request.value,
      gas: request.gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    })
    try {
      const hash = await client.sendRawTransaction({ serializedTransaction: serialized })
      nonce += 1
      return hash
    } catch (error) {
      // The node refused it: our nonce or fees may be stale (a restart, a transaction from elsewhere).
      nonce = undefined
      fees = undefined
      throw error
    }
  }

  return {
    address: account.address,
    send(request) {
      const result = queue.then(() => sendNow(request))
      queue = result.catch(() => {})
      return result
    },
    async waitForReceipt(hash, timeoutMs = receiptTimeoutMs) {
      const deadline = Date.now() + timeoutMs
      for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
        try {
          return await client.getTransactionReceipt({ hash })
        } catch (error) {
          if (!(error instanceof TransactionReceiptNotFoundError)) throw error
        }
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for the receipt of ${hash}`)
        await new Promise((resolve) => setTimeout(resolve, delay))
      }
    },
    reset() {
      nonce = undefined
      fees = undefined
    },
  }
}
