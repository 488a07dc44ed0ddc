import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import type { FacilitatorEvmSigner } from '@x402/evm'
import { LRUCache } from 'lru-cache'
import {
  encodeFunctionData,
  getAddress,
  isHex,
  parseAbi,
  parseSignature,
  type Abi,
  type Address,
  type Hash,
  type Hex,
  type PublicClient,
  type TransactionReceipt,
} from 'viem'
import { canonicalJson } from '../../core/canonical-json.js'
import { contractCallGas, type RelayChain } from './mode.js'
import { createTxSender, type TxSender } from './tx-sender.js'

/** What the facilitator needs of a relay: the scheme's signer, the prefetch hook and a reset after a restart. */
export type RelaySigner = FacilitatorEvmSigner & {
  reset(): void
  prefetch: SimulationPrefetch
  /** Sends `value` wei of ETH from a relayer to `to` (a buyer's gas, erc20ApprovalGasSponsoring); resolves once mined. */
  fund(to: Address, value: bigint): Promise<Hash>
  /**
   * A call sent from relayer `from` (the facilitator an upto witness names, the auth-capture operator; the plain relay
   * has only one), with `gas` as its limit when given.
   */
  sendFrom(from: Address, to: Address, data: Hex, gas?: bigint): Promise<Hash>
}

/** How long an address without code is taken as such (a contract may be deployed there meanwhile). */
const emptyCodeTtlMs = 1_000
/** Addresses whose code is remembered at most. */
const codeMemory = 1_024
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
 * Compared with the plain path (`relay: 'viem'`, chain/relay/viem-signer.ts) it does the same calls with fewer
 * round trips: contract code is cached (code at an address with code never changes; an empty answer is kept for a
 * second), and a transaction goes out from a relayer (an Anvil dev account, so unlocked; chain/relay/tx-sender.ts) with
 * its gas limit given: Anvil signs it and fills in the fees, svc's miner mines it at once (with whatever else waits,
 * chain/relay/miner.ts) and the receipt is read. A transfer that reverted all the same is explained by its revert
 * reason. Caches and nonces are dropped when the chain restarts.
 *
 * Transactions are spread over a pool of relayer accounts (chain/constants.ts), each with one transaction in flight
 * at most: a transaction that reaches Anvil while the one before it from the same sender is being mined can be left
 * in the pool unmined (foundry-rs/foundry#10122), and with it every later one of that sender. This happens under
 * `--no-mining` too (test/bench/relay-guards.ts, 2,000 transactions): 16 in flight from one relayer left 51–74
 * unmined without the pool guard, and with the guard ran at 139–333 tx/s against 456–804 for one in flight for each
 * of 16 relayers, which left none even with neither the pool guard nor the miner's sweep. The pool guard stays for
 * other senders (chain/anvil/anvil.ts).
 */
export function createRelayerSigner(chain: RelayChain): RelaySigner {
  const { client } = chain
  const senders = chain.accounts.relayers.map((account) =>
    createTxSender({
      client,
      account,
      chainId: chain.chainId,
      mine: (sent) => chain.mine(sent),
      era: () => chain.era,
    }),
  )
  const pool = createSenderPool(senders)
  const addresses = senders.map((sender) => sender.address)
  const relayers = new Set(addresses.map((address) => address.toLowerCase()))
  // Code at an address with code never changes; concurrent asks for one address share one call.
  const codeCache = new LRUCache<Address, { code: Hex | undefined }>({
    max: codeMemory,
    fetchMethod: async (address, _stale, { options }) => {
      const code = await client.getCode({ address })
      if (!code || code === '0x') options.ttl = emptyCodeTtlMs
      return { code }
    },
  })
  const getCode = async (address: Address) => (await codeCache.fetch(address.toLowerCase() as Address))?.code

  /** Transfers whose simulation passed, for {@link simulatedTtlMs}. */
  const simulated = new LRUCache<string, true>({ max: simulatedMemory, ttl: simulatedTtlMs })
  const prefetch = createSimulationPrefetch(client)

  /**
   * A contract read. A `transferWithAuthorization` simulation that passed is remembered for {@link simulatedTtlMs} and
   * answers the next simulation of the same transfer once (the settlement's, right after the verification).
   */
  async function readContract(args: Parameters<FacilitatorEvmSigner['readContract']>[0]): Promise<unknown> {
    // From the relayer its transaction would come from (upto's proxy only lets the witness's facilitator settle).
    const call = {
      ...args,
      account: requiredSender(args.args) ?? addresses[0]!,
      abi: args.abi as Abi,
      args: args.args as unknown[],
    } as Parameters<typeof client.readContract>[0]
    if (args.functionName !== 'transferWithAuthorization') return client.readContract(call)
    const key = contractReadKey(args.address, args.args)
    const passed = simulated.get(key)
    simulated.delete(key)
    if (passed) return undefined
    const result = await (prefetch.take(key) ?? client.readContract(call))
    simulated.set(key, true)
    return result
  }

  /**
   * The relayer a call must come from: the `facilitator` an upto payment's witness names (one of the pool, as the
   * scheme's `getExtra` offered it), else any.
   */
  function requiredSender(callArgs: readonly unknown[] | undefined): Address | undefined {
    for (const arg of callArgs ?? []) {
      const named = (arg as { facilitator?: unknown } | null)?.facilitator
      if (typeof named === 'string' && relayers.has(named.toLowerCase())) return named as Address
    }
    return undefined
  }

  /**
   * A mined transaction reverted: the same call at the block before says why (its revert reason, which the scheme maps
   * to a reason code, as for a simulation that failed).
   */
  async function explainRevert(from: Address, to: Address, data: Hex, receipt: TransactionReceipt): Promise<never> {
    await client.call({ account: from, to, data, blockNumber: receipt.blockNumber - 1n })
    throw new Error(`the settlement transaction ${receipt.transactionHash} reverted`)
  }

  /**
   * Sends from an idle relayer, or from `from` (one of the pool) when the call must come from that one (mined at once); a transfer
   * that reverted is explained by its revert reason.
   */
  async function send(to: Address, data: Hex, gas: bigint | undefined, from?: Address): Promise<Hash> {
    const sender = await pool.take(from)
    try {
      const hash = await sender.send({ to, data, gas })
      const receipt = sender.minedReceipt(hash)
      if (receipt?.status === 'reverted') return await explainRevert(sender.address, to, data, receipt)
      return hash
    } finally {
      pool.give(sender)
    }
  }

  return {
    getAddresses: () => addresses,
    readContract,
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    async writeContract(args) {
      let data = encodeFunctionData({ abi: args.abi as Abi, functionName: args.functionName, args: args.args })
      if (args.dataSuffix) data = `${data}${args.dataSuffix.slice(2)}`
      // A transfer being sent is simulated for real the next time (a replay is refused by the chain).
      if (args.functionName === 'transferWithAuthorization') simulated.delete(contractReadKey(args.address, args.args))
      return send(args.address, data, args.gas ?? contractCallGas, requiredSender(args.args))
    },
    sendTransaction: (args) => send(args.to, args.data, undefined),
    sendFrom: (from, to, data, gas) => send(to, data, gas, from),
    waitForTransactionReceipt: (args) =>
      (senders.find((sender) => sender.minedReceipt(args.hash)) ?? senders[0]!).waitForReceipt(args.hash, args.timeout),
    getCode: (args) => getCode(args.address),
    prefetch,
    async fund(to, value) {
      const sender = await pool.take()
      try {
        return await sender.send({ to, value, gas: 21_000n })
      } finally {
        pool.give(sender)
      }
    },
    reset() {
      prefetch.clear()
      for (const sender of senders) sender.reset()
      codeCache.clear()
      simulated.clear()
    },
  }
}

/** Idle senders handed out one at a time, the last one given back first; callers wait in order when all are busy (or the one they name is). */
function createSenderPool(senders: TxSender[]) {
  const idle = [...senders]
  const waiting: { from: Address | undefined; resolve: (sender: TxSender) => void }[] = []
  const fits = (sender: TxSender, from: Address | undefined) =>
    from === undefined || sender.address.toLowerCase() === from.toLowerCase()
  return {
    /** An idle sender; `from` asks for that account (one of the pool's). */
    take(from?: Address): Promise<TxSender> {
      // The most recently used first: one payment at a time keeps going through the same, warm account.
      const index = idle.findLastIndex((sender) => fits(sender, from))
      if (index >= 0) return Promise.resolve(idle.splice(index, 1)[0]!)
      return new Promise((resolve) => waiting.push({ from, resolve }))
    },
    give(sender: TxSender) {
      const index = waiting.findIndex((waiter) => fits(sender, waiter.from))
      if (index >= 0) waiting.splice(index, 1)[0]!.resolve(sender)
      else idle.push(sender)
    },
  }
}

/** The EIP-3009 transfer as the exact scheme simulates it for an ECDSA signature (v, r, s). */
const transferWithAuthorizationAbi = parseAbi([
  'function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)',
])

/** A prefetched simulation is used within this long, or dropped. */
const prefetchTtlMs = 2_000
/** Prefetched simulations held at most. */
const prefetchMemory = 1_024

/** The key of a contract read, as the relayer's memory of simulations has it. */
export const contractReadKey = (address: string, args: readonly unknown[] | undefined) => canonicalJson([address, args])

export type SimulationPrefetch = {
  /**
   * Starts the `transferWithAuthorization` simulation that the exact scheme's verify will ask for, so it runs on the
   * chain while the scheme recovers the signature (1.4 ms of CPU) instead of after it. Payloads it cannot read as an
   * EIP-3009 payment with an ECDSA signature are left to the scheme.
   */
  start(payload: PaymentPayload, requirements: PaymentRequirements): void
  /** The prefetched result of the read with this key (once), or undefined. */
  take(key: string): Promise<unknown> | undefined
  clear(): void
}

/**
 * Simulations started ahead of the scheme. Nothing is decided here: the scheme still makes the same call (answered
 * from here when its arguments are the ones anticipated, to the byte) and judges its outcome; a payment the scheme
 * refuses before simulating costs one `eth_call` for nothing.
 */
export function createSimulationPrefetch(client: PublicClient): SimulationPrefetch {
  const started = new LRUCache<string, Promise<unknown>>({ max: prefetchMemory, ttl: prefetchTtlMs })
  return {
    start(payload, requirements) {
      const { authorization, signature } = payload.payload as {
        authorization?: Record<string, string>
        signature?: unknown
      }
      if (!authorization || typeof signature !== 'string' || !isHex(signature) || signature.length !== 132) return
      let key: string
      let call: Parameters<PublicClient['readContract']>[0]
      try {
        const { v, yParity, r, s } = parseSignature(signature)
        const args = [
          getAddress(authorization.from!),
          getAddress(authorization.to!),
          BigInt(authorization.value!),
          BigInt(authorization.validAfter!),
          BigInt(authorization.validBefore!),
          authorization.nonce as `0x${string}`,
          Number(v ?? yParity),
          r,
          s,
        ] as const
        const address = getAddress(requirements.asset)
        key = contractReadKey(address, [...args.slice(0, 6), v ?? yParity, r, s])
        call = { address, abi: transferWithAuthorizationAbi, functionName: 'transferWithAuthorization', args }
      } catch {
        return
      }
      if (started.has(key)) return
      const result = client.readContract(call)
      result.catch(() => {})
      started.set(key, result)
    },
    take(key) {
      const result = started.get(key)
      started.delete(key)
      return result
    },
    clear: () => started.clear(),
  }
}
