/**
 * The chain's own settle rate as it grows: pre-signed `transferWithAuthorization` transactions from one relayer
 * account (as svc's facilitator sends them), `concurrency` in flight, each sent with `eth_sendRawTransaction` and
 * its receipt awaited (read per block as blocks come, or polled every 2 → 50 ms like chain/relay/tx-sender.ts), in
 * batches. Signing happens before each batch and is not timed. Besides the rate of each batch it reports the slowest receipt (a stall shows
 * here: automine leaving out-of-order transactions unmined, foundry-rs/foundry#10122), what is left in Anvil's
 * pool, and Anvil's RSS.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { authorizationTypes } from '@x402/evm'
import { encodeFunctionData, parseSignature, toHex, webSocket, type Hex, type LocalAccount } from 'viem'
import { mnemonicToAccount } from 'viem/accounts'
import { Pool } from 'undici'
import { startChain } from '../../chain/start-chain.js'
import { sandboxMnemonic } from '../../chain/constants.js'
import { sandboxUsdcAbi } from '../../chain/contracts/sandbox-usdc.generated.js'
import { newAccount } from '../helpers/payments.js'
import { plainAnvil } from './plain-anvil.js'
import { percentile, round, runPool } from './pool.js'
import { rssKb } from './process-tree.js'

export type ChainGrowthOptions = {
  /** Transfers in all. @defaultValue 20_000 */
  transfers?: number
  /** Transfers per measured batch. @defaultValue 1_000 */
  batch?: number
  /** Transactions in flight. @defaultValue 16 */
  concurrency?: number
  /** Anvil arguments on top of svc's own (prool's camelCase names; `undefined` drops one of svc's). */
  anvilArgs?: Record<string, unknown>
  /** How Anvil mines (chain/anvil/anvil.ts). @defaultValue svc's default */
  mining?: 'auto' | 'batched'
  /** `blocks`: receipts read per block as blocks come (no polling delay); `poll`: polled 2 → 50 ms per transaction. @defaultValue 'blocks' */
  receipts?: 'blocks' | 'poll'
  /** Keep the chain in a state file, dumped every 30 s as `svc up` does with a data dir. @defaultValue false */
  stateFile?: boolean
  /** A receipt awaited longer than this counts as a stall. @defaultValue 2_000 */
  stallMs?: number
  progress?: (line: string) => void
}

type Rpc = (method: string, params: unknown[]) => Promise<any>

/** A JSON-RPC client over a keep-alive pool: the least client overhead, so Anvil sets the pace. */
function createRpc(url: string, connections: number): { rpc: Rpc; close(): Promise<void> } {
  const pool = new Pool(url, { connections, pipelining: 1 })
  let id = 0
  const rpc: Rpc = async (method, params) => {
    const response = await pool.request({
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
    })
    const answer = (await response.body.json()) as { result?: unknown; error?: { message: string } }
    if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
    return answer.result
  }
  return { rpc, close: () => pool.close() }
}

/** The chain a batch runs on: svc's running chain or a fresh one. */
export type TransferTarget = {
  rpcUrl: string
  chainId: number
  usdc: { address: Hex; name: string; version: string }
  /** Gives `address` this many USDC base units. */
  fund(address: Hex, amount: bigint): Promise<unknown>
  /** Anvil's pid, for its RSS. */
  anvilPid?: number | undefined
}

/**
 * Signs `count` authorizations of `buyer` and the relayer's transactions carrying them, nonces from `nonce` on. The gas
 * limit leaves room for the sandbox USDC's record of used authorizations: 90–100k gas a transfer, up to about 145k when
 * it starts a new region of its set (chain/contracts/SandboxUSDC.sol), against about 80k for mainnet USDC.
 */
async function signBatch(
  chain: TransferTarget,
  relayer: LocalAccount,
  buyer: LocalAccount,
  payTo: Hex,
  nonce: number,
  count: number,
): Promise<Hex[]> {
  const domain = {
    name: chain.usdc.name,
    version: chain.usdc.version,
    chainId: chain.chainId,
    verifyingContract: chain.usdc.address,
  }
  const signed: Hex[] = []
  for (let i = 0; i < count; i++) {
    const authorization = {
      from: buyer.address,
      to: payTo,
      value: 1000n,
      validAfter: 0n,
      validBefore: 2n ** 48n,
      nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
    }
    const signature = await buyer.signTypedData({
      domain,
      types: authorizationTypes,
      primaryType: 'TransferWithAuthorization',
      message: authorization,
    })
    const { v, r, s } = parseSignature(signature)
    const data = encodeFunctionData({
      abi: sandboxUsdcAbi,
      functionName: 'transferWithAuthorization',
      args: [
        authorization.from,
        authorization.to,
        authorization.value,
        authorization.validAfter,
        authorization.validBefore,
        authorization.nonce,
        Number(v),
        r,
        s,
      ],
    })
    signed.push(
      await relayer.signTransaction({
        type: 'eip1559',
        chainId: chain.chainId,
        nonce: nonce + i,
        to: chain.usdc.address,
        data,
        gas: 200_000n,
        maxFeePerGas: 20_000_000_000n,
        maxPriorityFeePerGas: 1_000_000n,
      }),
    )
  }
  return signed
}

/**
 * Receipts as blocks come: one `newHeads` subscription (WebSocket) and one `eth_getBlockReceipts` per block settle
 * every waiting transaction of the block at once, with no polling delay.
 */
async function watchReceipts(rpcUrl: string, rpc: Rpc) {
  const waiting = new Map<string, (receipt: { status: string }) => void>()
  const early = new Map<string, { status: string }>()
  const transport = webSocket(rpcUrl.replace(/^http/, 'ws'), { keepAlive: false, retryCount: 0 })({})
  const subscription = await transport.value!.subscribe({
    params: ['newHeads'],
    onData: async (data) => {
      const head = (data as unknown as { result: { number: Hex } }).result
      const receipts = (await rpc('eth_getBlockReceipts', [head.number])) as {
        transactionHash: string
        status: string
      }[]
      for (const receipt of receipts ?? []) {
        const resolve = waiting.get(receipt.transactionHash)
        if (resolve) {
          waiting.delete(receipt.transactionHash)
          resolve(receipt)
        } else early.set(receipt.transactionHash, receipt)
      }
    },
  })
  return {
    wait(hash: Hex, giveUpMs: number): Promise<{ status: string } | undefined> {
      const known = early.get(hash)
      if (known) return (early.delete(hash), Promise.resolve(known))
      return new Promise((resolve) => {
        const timer = setTimeout(() => (waiting.delete(hash), resolve(undefined)), giveUpMs)
        waiting.set(hash, (receipt) => (clearTimeout(timer), resolve(receipt)))
      })
    },
    async close() {
      await subscription.unsubscribe().catch(() => {})
      ;(await transport.value!.getRpcClient()).close()
    },
  }
}

async function waitForReceipt(rpc: Rpc, hash: Hex, giveUpMs: number): Promise<{ status: string } | undefined> {
  const deadline = performance.now() + giveUpMs
  for (let delay = 2; performance.now() < deadline; delay = Math.min(delay * 2, 50)) {
    const receipt = await rpc('eth_getTransactionReceipt', [hash])
    if (receipt) return receipt
    await new Promise((resolve) => setTimeout(resolve, delay))
  }
  return undefined
}

export type TransferBatchOptions = Pick<
  ChainGrowthOptions,
  'transfers' | 'batch' | 'concurrency' | 'receipts' | 'stallMs' | 'progress'
> & {
  /** The dev account (of the mnemonic) that sends the transactions; svc uses 0 and 1. @defaultValue 5 */
  relayerIndex?: number
  /** A state file to report the size of. */
  statePath?: string | undefined
}

/** Runs `transfers` pre-signed transfers on `target` in batches of `batch`; one row per batch. */
export async function runTransferBatches(target: TransferTarget, options: TransferBatchOptions = {}) {
  const {
    transfers = 20_000,
    batch = 1_000,
    concurrency = 16,
    receipts = 'blocks',
    stallMs = 2_000,
    relayerIndex = 5,
    statePath,
    progress = () => {},
  } = options
  const { rpc, close } = createRpc(target.rpcUrl, concurrency + 2)
  const watcher = receipts === 'blocks' ? await watchReceipts(target.rpcUrl, rpc) : undefined
  try {
    const relayer = mnemonicToAccount(sandboxMnemonic, { addressIndex: relayerIndex })
    const buyer = newAccount()
    await target.fund(buyer.address, BigInt(transfers) * 1000n)
    const payTo = newAccount().address
    let nonce = Number(await rpc('eth_getTransactionCount', [relayer.address, 'pending']))
    const batches = []
    for (let done = 0; done < transfers; done += batch) {
      const signed = await signBatch(target, relayer, buyer, payTo, nonce, batch)
      nonce += batch
      let stalls = 0
      let lost = 0
      const block0 = Number(await rpc('eth_blockNumber', []))
      const run = await runPool(signed, concurrency, async (raw) => {
        const t0 = performance.now()
        const hash = (await rpc('eth_sendRawTransaction', [raw])) as Hex
        const receipt = watcher ? await watcher.wait(hash, 30_000) : await waitForReceipt(rpc, hash, 30_000)
        if (receipt?.status !== '0x1') lost++
        if (performance.now() - t0 > stallMs) stalls++
      })
      const pool = await rpc('txpool_status', [])
      const blocks = Number(await rpc('eth_blockNumber', [])) - block0
      const row = {
        after: done + batch,
        per_second: round((batch / run.wallMs) * 1000),
        p50_ms: round(percentile(run.latencies, 50), 2),
        p95_ms: round(percentile(run.latencies, 95), 2),
        max_ms: round(Math.max(...run.latencies)),
        tx_per_block: round(batch / blocks, 2),
        stalls,
        lost,
        pool_pending: Number(pool.pending),
        pool_queued: Number(pool.queued),
        ...(target.anvilPid ? { anvil_rss_mb: round(rssKb(target.anvilPid) / 1024) } : {}),
        ...(statePath
          ? { state_file_mb: round((statSync(statePath, { throwIfNoEntry: false })?.size ?? 0) / 2 ** 20) }
          : {}),
      }
      batches.push(row)
      progress(`transfers: ${JSON.stringify(row)}`)
    }
    return batches
  } finally {
    await watcher?.close()
    await close()
  }
}

/** A fresh chain of svc's chain kit as a transfer target. */
function targetOf(chain: Awaited<ReturnType<typeof startChain>>): TransferTarget {
  return {
    rpcUrl: chain.rpcUrl,
    chainId: chain.chainId,
    usdc: chain.usdc,
    fund: (address, amount) => chain.usdcFunder.fund(address, amount),
    anvilPid: chain.pid,
  }
}

/** The chain's rate as it grows to `transfers` on one Anvil (svc's settings, or `anvilArgs`/`mining` on top). */
export async function benchChainGrowth(options: ChainGrowthOptions = {}) {
  const {
    transfers = 20_000,
    batch = 1_000,
    concurrency = 16,
    anvilArgs = {},
    stateFile = false,
    mining,
    receipts = 'blocks',
  } = options
  const dir = stateFile ? mkdtempSync(join(tmpdir(), 'svc-chain-growth-')) : undefined
  const statePath = dir ? join(dir, 'state.json') : undefined
  const chain = await startChain({
    statePath,
    freshChain: true,
    extraArgs: anvilArgs,
    watchdog: false,
    mining,
  })
  try {
    const batches = await runTransferBatches(targetOf(chain), { ...options, statePath })
    // What a state dump costs now (the 30 s dump of a data dir does the same work, uncompressed).
    const t0 = performance.now()
    await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
    }).then((r) => r.arrayBuffer())
    const dumpMs = performance.now() - t0
    const first = batches[0]!.per_second
    const last = batches[batches.length - 1]!.per_second
    return {
      transfers,
      batch,
      concurrency,
      anvil_args: anvilArgs,
      mining: mining ?? 'default',
      receipts,
      state_file: stateFile,
      first_per_second: first,
      last_per_second: last,
      last_to_first: round(last / first, 2),
      stalls: batches.reduce((sum, row) => sum + row.stalls, 0),
      lost: batches.reduce((sum, row) => sum + row.lost, 0),
      dump_state_ms: round(dumpMs),
      batches,
    }
  } finally {
    await chain.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The chain limit of issue 11: pre-signed transfers, `rounds` batches of `perRound`, on a fresh plain Anvil each
 * round (the reference) and in a row on svc's running chain (`svc`, after its paid load).
 */
export async function benchChainLimit(
  svc: TransferTarget,
  options: { rounds?: number; perRound?: number; progress?: (line: string) => void } = {},
) {
  const { rounds = 3, perRound = 1_000, progress } = options
  const fresh = []
  for (let r = 0; r < rounds; r++) {
    const chain = await startChain({ ...plainAnvil, watchdog: false })
    try {
      fresh.push(
        ...(await runTransferBatches(targetOf(chain), {
          transfers: perRound,
          batch: perRound,
          receipts: 'poll',
          progress,
        })),
      )
    } finally {
      await chain.stop()
    }
  }
  const running = await runTransferBatches(svc, {
    transfers: perRound * rounds,
    batch: perRound,
    receipts: 'poll',
    progress,
  })
  return {
    per_round: perRound,
    reference_fresh_chain: fresh.map((row) => row.per_second),
    svc_running_chain: running.map((row) => row.per_second),
    max_ms: {
      reference: Math.max(...fresh.map((row) => row.max_ms)),
      svc: Math.max(...running.map((row) => row.max_ms)),
    },
  }
}
