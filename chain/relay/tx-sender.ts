import {
  BaseError,
  formatTransactionReceipt,
  keccak256,
  numberToHex,
  NonceTooLowError,
  RpcRequestError,
  TransactionReceiptNotFoundError,
  type Address,
  type Hash,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type RpcTransactionReceipt,
  type TransactionReceipt,
} from 'viem'
import { getNodeError } from 'viem/utils'
import { LRUCache } from 'lru-cache'
import type { MinedReceipts } from './miner.js'

export type TxSenderOptions = {
  client: PublicClient
  account: LocalAccount
  chainId: number
  /** How long a receipt is awaited before giving up. @defaultValue 30_000 */
  receiptTimeoutMs?: number | undefined
  /**
   * The node holds the account's key (an Anvil dev account) and mines on demand (svc's batched mining,
   * chain/relay/miner.ts): a transaction goes out as `eth_sendTransaction` (the node signs it and fills in the fees;
   * the nonce is still handed out here, in order), this mines it together with whatever else waits, and its receipt
   * is read. The miner is told of the send as it starts (`sent`), so a block about to start can wait for it.
   * @defaultValue signed here and sent raw; the receipt is polled for
   */
  mine?: ((sent?: Promise<unknown>) => Promise<MinedReceipts>) | undefined
  /**
   * The chain's era (SandboxChain.era): it changes whenever the chain goes away or comes back. A nonce taken in one
   * era is never sent in another (the send ends in a {@link TxDroppedError}, and no gap is filled for it): on a
   * restarted chain it would wait in the pool for ever, or land later as a surprise; nonces are read again.
   * @defaultValue one era, changed only by {@link TxSender.reset}
   */
  era?: (() => number) | undefined
}

/** A transaction to send; without `gas`, the node (`mine`) or its estimate + 20% says how much. */
export type TxRequest = { to: Address; data?: Hex | undefined; value?: bigint | undefined; gas?: bigint | undefined }

export type TxSender = {
  address: Address
  /** Signs locally and broadcasts; nonces are assigned in order, one transaction at a time. */
  send(request: TxRequest): Promise<Hash>
  waitForReceipt(hash: Hash, timeoutMs?: number): Promise<TransactionReceipt>
  /** The receipt of `hash` sent with `mine` (mined by the time `send` answered), until `waitForReceipt` takes it (undefined on the signed-here path). */
  minedReceipt(hash: Hash): TransactionReceipt | undefined
  /**
   * Forgets the cached nonce and fees (after a chain restart); receipts awaited meanwhile end in a
   * {@link TxDroppedError} unless the new chain has them.
   */
  reset(): void
}

/**
 * The chain restarted ({@link TxSender.reset}, or its era changed) and does not have the transaction: it was never
 * mined, or never sent (its nonce was the previous chain's), and is gone.
 */
export class TxDroppedError extends Error {
  override name = 'TxDroppedError'
}

const feeTtlMs = 2_000
/** Receipts of mined transactions kept until they are asked for. */
const minedMemory = 1_024

/** What the node itself said of a refused request (its JSON-RPC error message), found in viem's cause chain. */
function nodeMessage(error: unknown): string | undefined {
  const rpc = error instanceof BaseError ? error.walk((e) => e instanceof RpcRequestError) : undefined
  return rpc instanceof RpcRequestError ? rpc.details : undefined
}

/**
 * The node already holds this very transaction (a retried send). Only the node's message tells: Anvil answers a
 * duplicate with the JSON-RPC code -32003 it also uses for "nonce too low" and "replacement transaction underpriced",
 * and viem's NonceTooLowError lumps a duplicate with "nonce too low", so the words are matched here ("transaction
 * already imported" from Anvil, "already known" from geth, "known transaction" from older nodes).
 */
function isAlreadyKnown(error: unknown): boolean {
  return /already known|known transaction|already imported/i.test(nodeMessage(error) ?? '')
}

/**
 * What a relayer's send refused for its own nonce says (viem's NonceTooLowError, the node's "nonce too low"): never the
 * buyer's doing. The x402 scheme hands the facilitator only the error's text.
 */
export function isRelayerNonceMessage(message: string | undefined): boolean {
  return /nonce too low|lower than the current nonce of the account/i.test(message ?? '')
}

/** The nonce is taken already: viem's own reading of the node's error (NonceTooLowError). */
function isNonceUsed(error: unknown): boolean {
  return error instanceof BaseError && getNodeError(error, {}) instanceof NonceTooLowError
}

/**
 * A transaction sender for one local account on a local chain: nonces handed out from memory in order, fees
 * cached for a moment, signing done here and `eth_sendRawTransaction` sent at once, so concurrent transactions
 * are pipelined (the node orders them by nonce). viem's `sendTransaction` would fill the same fields with three
 * to four extra RPC calls per transaction.
 */
export function createTxSender(options: TxSenderOptions): TxSender {
  const { client, account, chainId, receiptTimeoutMs = 30_000, mine, era: chainEra } = options
  /** The gas of a request without any, on the signed-here path: the node's estimate + 20% (a revert throws here). */
  const estimateGas = async (request: TxRequest) =>
    ((await client.estimateGas({
      account: account.address,
      to: request.to,
      data: request.data,
      value: request.value,
    })) *
      12n) /
    10n
  const mined = new LRUCache<Hash, TransactionReceipt>({ max: minedMemory })
  /** A receipt as the node answers it, formatted as `getTransactionReceipt` formats it (the chain's formatter, else viem's). */
  const formatReceipt: (receipt: RpcTransactionReceipt) => TransactionReceipt =
    client.chain?.formatters?.transactionReceipt?.format ?? formatTransactionReceipt
  let nonce: Promise<number> | undefined
  let nextNonce = 0
  /** Counts resets: a receipt awaited across one is looked up once more on the new chain, then given up. */
  let resets = 0
  /** Changes with every reset and every change of the chain's era (both only grow). */
  const eraNow = () => resets + (chainEra?.() ?? 0)
  /** The era the counted nonces belong to. */
  let nonceEra = eraNow()
  let fees: Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint; at: number }> | undefined

  function getFees() {
    const cached = fees
    if (cached) return cached.then((f) => (Date.now() - f.at < feeTtlMs ? f : refreshFees()))
    return refreshFees()
  }

  function refreshFees() {
    fees = client.getBlock({ blockTag: 'latest' }).then((block) => {
      const baseFee = block.baseFeePerGas ?? 1_000_000_000n
      const maxPriorityFeePerGas = 1_000_000n
      return { maxFeePerGas: baseFee * 2n + maxPriorityFeePerGas, maxPriorityFeePerGas, at: Date.now() }
    })
    fees.catch(() => (fees = undefined))
    return fees
  }

  /**
   * The next nonce and its era; the first call (and the first in a new era) asks the node, later ones count on from
   * memory.
   */
  async function takeNonce(): Promise<{ nonce: number; era: number }> {
    if (nonceEra !== eraNow()) nonce = undefined
    if (!nonce) {
      const era = eraNow()
      nonceEra = era
      const asked = client.getTransactionCount({ address: account.address, blockTag: 'pending' })
      nonce = asked
      asked.then(
        (n) => {
          if (nonce === asked) nextNonce = n
        },
        () => {
          if (nonce === asked) nonce = undefined
        },
      )
    }
    const current = nonce
    const era = nonceEra
    await current
    // Another era began meanwhile (or the nonce was asked again): take one of the new count.
    if (current !== nonce || era !== eraNow()) return takeNonce()
    return { nonce: nextNonce++, era }
  }

  /** Nothing is sent with a nonce of another era: the chain it was counted on is gone. */
  function assertEra(txEra: number, txNonce: number) {
    if (txEra !== eraNow())
      throw new TxDroppedError(`the chain restarted before the transaction at nonce ${txNonce} was sent: not sent`)
  }

  /**
   * The node signs the transaction and fills in the fees (no block read for them here); it is mined here and its
   * receipt kept for {@link TxSender.minedReceipt}.
   */
  async function sendUnlocked(
    request: TxRequest,
    txNonce: number,
    txEra: number,
    mineNow: (sent?: Promise<unknown>) => Promise<MinedReceipts>,
  ): Promise<Hash> {
    const transaction = {
      from: account.address,
      to: request.to,
      nonce: numberToHex(txNonce),
      ...(request.data === undefined ? {} : { data: request.data }),
      ...(request.value === undefined ? {} : { value: numberToHex(request.value) }),
      ...(request.gas === undefined ? {} : { gas: numberToHex(request.gas) }),
    }
    assertEra(txEra, txNonce)
    const receipt = await sendAndMine(transaction, mineNow)
    mined.set(receipt.transactionHash, receipt)
    return receipt.transactionHash
  }

  /**
   * `eth_sendTransaction` (the transaction is in the pool when it answers), a block mined, its receipt: the one the
   * miner read with the block's others, else read here.
   */
  async function sendAndMine(
    transaction: object,
    mineNow: (sent?: Promise<unknown>) => Promise<MinedReceipts>,
  ): Promise<TransactionReceipt> {
    const sending = client.request<{ Method: 'eth_sendTransaction'; Parameters: [object]; ReturnType: Hash }>({
      method: 'eth_sendTransaction',
      params: [transaction],
    })
    const mined = mineNow(sending)
    const hash = await sending
    const inBlock = (await mined)?.get(hash.toLowerCase())
    if (inBlock) return formatReceipt(inBlock as RpcTransactionReceipt)
    return client.getTransactionReceipt({ hash }).catch((error) => {
      if (!(error instanceof TransactionReceiptNotFoundError)) throw error
      return waitForReceipt(hash, receiptTimeoutMs)
    })
  }

  async function signAndSend(request: TxRequest, txNonce: number, txEra: number): Promise<Hash> {
    if (mine) return sendUnlocked(request, txNonce, txEra, mine)
    const { maxFeePerGas, maxPriorityFeePerGas } = await getFees()
    const gas = request.gas ?? (await estimateGas(request))
    const serializedTransaction = await account.signTransaction!({
      type: 'eip1559',
      chainId,
      nonce: txNonce,
      to: request.to,
      data: request.data,
      value: request.value,
      gas,
      maxFeePerGas,
      maxPriorityFeePerGas,
    })
    assertEra(txEra, txNonce)
    try {
      return await client.sendRawTransaction({ serializedTransaction })
    } catch (error) {
      // A retried send the node had already taken: the transaction is in, under its own hash.
      if (isAlreadyKnown(error)) return keccak256(serializedTransaction)
      throw error
    }
  }

  /**
   * Sends an empty transaction at `txNonce`, a few times if need be; false when the node took none. A gap of an era
   * that ended is not filled: the chain it was in is gone (and filling it on the next one would strand the filler).
   */
  async function fillGap(txNonce: number, txEra: number): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      if (txEra !== eraNow()) return true
      try {
        await signAndSend({ to: account.address, gas: 21_000n }, txNonce, txEra)
        return true
      } catch (error) {
        // The nonce is used already (the first send did land): nothing to fill.
        if (isNonceUsed(error) || error instanceof TxDroppedError) return true
        await new Promise((resolve) => setTimeout(resolve, 25 * (attempt + 1)))
      }
    }
    return false
  }

  /** Polls for the receipt, 2 ms at first, up to 100 ms apart. */
  async function waitForReceipt(hash: Hash, timeoutMs: number): Promise<TransactionReceipt> {
    const deadline = Date.now() + timeoutMs
    const began = eraNow()
    for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
      const asked = eraNow()
      try {
        return await client.getTransactionReceipt({ hash })
      } catch (error) {
        if (!(error instanceof TransactionReceiptNotFoundError)) throw error
      }
      if (asked !== began) throw new TxDroppedError(`the chain restarted before ${hash} was mined: it was dropped`)
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for the receipt of ${hash}`)
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }

  return {
    address: account.address,
    async send(request) {
      const { nonce: txNonce, era } = await takeNonce()
      try {
        return await signAndSend(request, txNonce, era)
      } catch (error) {
        // The node refused it. Later nonces may already be in its pool, waiting for this one: fill the gap with an
        // empty transaction so they are not stuck; if even that fails, the nonce is stale: ask the node again.
        fees = undefined
        // The chain went away under the send: whatever it did is gone with that chain (the next one counts anew).
        if (era !== eraNow()) {
          if (error instanceof TxDroppedError) throw error
          throw new TxDroppedError(`the chain restarted while the transaction at nonce ${txNonce} was sent`, {
            cause: error,
          })
        }
        // The node is past this nonce (the chain restarted, or someone else sent from the account): the nonces
        // counted here are stale, and nothing waits behind this one. Ask the node again.
        if (isNonceUsed(error)) nonce = undefined
        else if (!(await fillGap(txNonce, era))) nonce = undefined
        throw error
      }
    },
    async waitForReceipt(hash, timeoutMs = receiptTimeoutMs) {
      const answered = mined.get(hash)
      if (answered) {
        mined.delete(hash)
        return answered
      }
      return waitForReceipt(hash, timeoutMs)
    },
    minedReceipt: (hash) => mined.get(hash),
    reset() {
      resets++
      nonce = undefined
      fees = undefined
      mined.clear()
    },
  }
}
