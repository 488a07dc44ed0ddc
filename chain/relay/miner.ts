import {
  keccak256,
  serializeTransaction,
  webSocket,
  type Hex,
  type Signature,
  type TransactionSerializable,
} from 'viem'
import { createAnvilRpc } from './anvil-rpc.js'

/**
 * The receipts of a block the miner mined for more than one waiting transaction, as the node answered them
 * (`eth_getBlockReceipts`, unformatted), by transaction hash in lower case: one call for the block instead of one
 * `eth_getTransactionReceipt` per transaction. Undefined for a block of one, or when the call failed (each sender
 * then asks for its own).
 */
export type MinedReceipts = ReadonlyMap<string, unknown> | undefined

export type BatchMiner = {
  /**
   * Mines the transactions waiting now without waiting for Anvil's notification: resolves once a block mined after
   * this call is in (or the pool was seen empty, every waiting transaction mined already). A sender that calls it
   * right after its transaction entered the pool gets it mined at once when the chain is idle, and together with
   * the others under load.
   *
   * `sent`: the transaction is still being sent, and is in the pool once `sent` settles. Its block is mined after
   * that; and a block about to start waits a little (at most about the last block's mining time) for the sends
   * announced before it, so transactions sent at the same moment share one block instead of two.
   */
  mine(sent?: Promise<unknown>): Promise<MinedReceipts>
  stop(): Promise<void>
}

/**
 * Automine that puts every transaction waiting at the time into one block: Anvil runs with `--no-mining`, this
 * subscribes to its ready transactions (`eth_subscribe newPendingTransactions`, over a WebSocket on the RPC port) and
 * answers each with `evm_mine`, one block at a time; transactions that arrive while a block is being mined go into
 * the next one, together.
 *
 * Why: Anvil's own automine mines about one transaction per block under load (its miner wakes on the first ready
 * transaction while the others wait on the state lock), and each block costs Anvil a full state-root computation that
 * grows with the chain's state (about 1 ms per 1,000 storage slots; the sandbox USDC records used authorizations
 * packed, about one slot per 2.5 payments, chain/contracts/SandboxUSDC.sol).
 * Fewer, fuller blocks keep the chain's rate up as it grows: 16 transfers in flight from one sender made 15.6
 * transactions a block (automine: 1.4) and 10,000 of them ran at 326 → 279 tx/s (automine: 475 → 132).
 *
 * A lone transaction waits for the notification and the `evm_mine` round trip, 3 to 5 ms against 1.4 ms with
 * automine; senders that call {@link BatchMiner.mine} right after sending skip that wait (svc's relayer does).
 *
 * The sweep below stays: test/bench/relay-guards.ts saw nothing left unmined without it (2,000 relayer transactions,
 * 3,000 pipelined raw sends), but the pool guard, which is still needed here (chain/anvil/anvil.ts), puts
 * transactions back into the pool, and the sweep is what mines those when no notification comes.
 */
let miners = 0

/** How often the pool is looked at for ready transactions no notification announced. */
const sweepIntervalMs = 1_000

/**
 * The longest a block waits for sends announced before it (ms). While Anvil mines a block it answers nothing else,
 * so the sends made meanwhile all arrive just after it; on a grown chain a block takes 10–20 ms (its state root
 * covers every storage slot, and they grow with the payments), and a block started before those sends are in would be followed
 * by another one for them, with the chain locked for both.
 */
const maxSendWaitMs = 20

/** Hashes of announced transactions remembered at most (their notifications come within a block or two). */
const announcedMemory = 4_096

export async function startBatchMiner(rpcUrl: string): Promise<BatchMiner> {
  // A URL of its own: viem keeps one socket per URL, and an Anvil restarted on the same port needs a new one.
  const socketUrl = `${rpcUrl.replace(/^http/, 'ws')}/?miner=${++miners}`
  // No reconnect: Anvil stops before its miner does, and viem's default reconnect would keep the process alive 10 s
  // more printing ECONNREFUSED; a restarted Anvil gets a new miner.
  const transport = webSocket(socketUrl, { keepAlive: false, reconnect: false, retryCount: 0, timeout: 60_000 })({})
  let mining: Promise<void> | undefined
  let again = false
  let stopped = false
  /** Calls of `mine()` so far; who waits for a block, and whether their transaction is in the pool yet. */
  let requested = 0
  let waiters: { ticket: number; sent: boolean; resolve: (receipts: MinedReceipts) => void }[] = []
  /** Wakes a block waiting for announced sends. */
  let onSent: (() => void) | undefined
  /**
   * Hashes of the transactions announced through `mine(sent)` (lower case, the latest {@link announcedMemory}): their
   * sender's call mines them, so Anvil's notification of each starts no round of its own (it used to start a second
   * look at the pool, `txpool_status`, for nearly every payment).
   */
  const announced = new Set<string>()
  const remember = (hash: unknown) => {
    if (typeof hash !== 'string') return
    announced.add(hash.toLowerCase())
    if (announced.size > announcedMemory) announced.delete(announced.values().next().value!)
  }
  let lastDuration = 0
  const settle = (done: Set<number> | 'all', receipts?: MinedReceipts) => {
    const leaving = waiters.filter((waiter) => done === 'all' || done.has(waiter.ticket))
    waiters = waiters.filter((waiter) => !leaving.includes(waiter))
    for (const waiter of leaving) waiter.resolve(receipts)
  }

  // Requests go over HTTP: on the WebSocket, Anvil's answer and the next notification would meet Nagle's algorithm
  // (a notification held ~40 ms until the answer before it is acknowledged).
  const request = createAnvilRpc(rpcUrl, { timeoutMs: 60_000 })

  /** Resolves once no send announced up to `ticket` is still under way, or after `ms`. */
  async function sendsAnnouncedBefore(ticket: number, ms: number) {
    const pending = () => waiters.some((waiter) => !waiter.sent && waiter.ticket <= ticket)
    if (!pending()) return
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      function done() {
        clearTimeout(timer)
        onSent = undefined
        resolve()
      }
      onSent = () => !pending() && done()
    })
  }

  async function mineWhileWaiting() {
    for (let first = true; first || again; first = false) {
      again = false
      await sendsAnnouncedBefore(requested, Math.min(Math.max(lastDuration, 1), maxSendWaitMs))
      // Every transaction in the pool now goes into this block.
      const covered = new Set(waiters.filter((waiter) => waiter.sent).map((waiter) => waiter.ticket))
      // A repeat block only for transactions that are still waiting (those that arrived during the last one may be in it).
      // Nothing waits: the last block took them (their receipts are most likely in the latest block).
      if (!first && Number((await request<{ pending: string }>('txpool_status')).pending) === 0) {
        settle(covered, covered.size > 1 ? await blockReceipts() : undefined)
        continue
      }
      const started = performance.now()
      await request('evm_mine')
      lastDuration = performance.now() - started
      // Several transactions wait for this block: their receipts in one call. The latest block is this one unless
      // someone else mined meanwhile (svc time advance): then a sender finds no receipt here and asks for its own.
      settle(covered, covered.size > 1 ? await blockReceipts() : undefined)
    }
  }

  function mine() {
    if (stopped) return
    if (mining) return void (again = true)
    mining = mineWhileWaiting()
      // A failed round (Anvil gone) leaves no one waiting: the senders find out from their receipts.
      .catch(() => settle(new Set(waiters.filter((waiter) => waiter.sent).map((waiter) => waiter.ticket))))
      .finally(() => {
        mining = undefined
        // Asked for between the last round and here.
        if (again) {
          again = false
          mine()
        }
      })
  }

  /**
   * Anvil's notification of a transaction in its pool: mined now, unless its sender announced it (its own `mine(sent)`
   * mines it) or a send announced is still under way (its block, once the send is in, takes every transaction waiting).
   */
  function notified(data: { result?: unknown } | undefined) {
    const hash = data?.result
    if (typeof hash === 'string' && announced.has(hash.toLowerCase())) return
    if (waiters.some((waiter) => !waiter.sent)) return
    mine()
  }

  async function blockReceipts(): Promise<MinedReceipts> {
    try {
      const receipts = await request<{ transactionHash: string }[] | null>('eth_getBlockReceipts', ['latest'])
      return new Map((receipts ?? []).map((receipt) => [receipt.transactionHash.toLowerCase(), receipt]))
    } catch {
      return undefined
    }
  }

  const subscription = await transport.value!.subscribe({
    params: ['newPendingTransactions'],
    onData: notified,
    onError: () => {},
  })
  // Transactions that were already waiting (none on a fresh chain).
  mine()
  // A safety net for a notification that never came (a socket hiccup, a transaction put back by the pool guard
  // under load): ready transactions still waiting a second later are mined.
  const sweep = setInterval(() => {
    if (mining || stopped) return
    void request<{ pending: string }>('txpool_status').then(
      (status) => Number(status.pending) > 0 && mine(),
      () => {},
    )
  }, sweepIntervalMs)
  sweep.unref()
  return {
    mine(sent) {
      const ticket = ++requested
      const waiter = { ticket, sent: sent === undefined, resolve: (_receipts: MinedReceipts) => {} }
      const mined = new Promise<MinedReceipts>((resolve) => {
        waiter.resolve = resolve
        waiters.push(waiter)
      })
      if (stopped) settle('all')
      else if (sent === undefined) mine()
      else
        void sent
          .then(remember, () => {})
          .then(() => {
            waiter.sent = true
            onSent?.()
            if (stopped) settle('all')
            else mine()
          })
      return mined
    },
    async stop() {
      stopped = true
      clearInterval(sweep)
      settle('all')
      await subscription.unsubscribe().catch(() => {})
      ;(await transport.value!.getRpcClient()).close()
    },
  }
}

export type PoolGuardOptions = {
  /** How often Anvil's pool is looked at (one `txpool_status` call when it holds nothing queued). @defaultValue 200 */
  intervalMs?: number | undefined
  /** Says what it re-queued. @defaultValue nothing is said */
  log?: ((message: string) => void) | undefined
}

/** `stop()`: the guard's Anvil is stopped or gone; a look at the pool under way sends nothing more. */
export type PoolGuard = { stop(): void }

/** The longest a call of the guard may take. */
const rpcTimeoutMs = 5_000

type RpcTransaction = Record<string, string | null | undefined | unknown[]> & { hash: Hex; nonce: Hex; from: Hex }
type PoolContent = {
  pending: Record<string, Record<string, RpcTransaction>>
  queued: Record<string, Record<string, RpcTransaction>>
}

/**
 * Works around foundry-rs/foundry#10122 (Anvil 1.7.1 included): with automine, a transaction that arrives while the
 * one before it (same sender, nonce − 1) is being mined can be checked against the chain before that block and put
 * in the pool after it, waiting for a nonce that is already mined. It stays queued for ever, and every later
 * transaction of its sender with it. Interval and mixed mining do not free it (they mine ready transactions only).
 *
 * The guard looks at the pool every `intervalMs`. A sender whose lowest queued nonce is the chain's next nonce for it,
 * seen so twice in a row (the same transaction), is stuck: its transactions are taken out of the pool
 * (`anvil_removePoolTransactions`) and sent again, signed as they were, in nonce order, so Anvil judges them afresh.
 * Only transactions whose re-encoding gives back their own hash are touched (impersonated ones are left alone).
 */
export function startPoolGuard(rpcUrl: string, options: PoolGuardOptions = {}): PoolGuard {
  const { intervalMs = 200, log = () => {} } = options
  // Bounded: a call that never returns would leave the guard `running` for ever, and stuck transactions with it.
  const rpc = createAnvilRpc(rpcUrl, { timeoutMs: rpcTimeoutMs })
  /** sender → hash of its lowest queued transaction, when that nonce is the chain's next one. */
  let suspects = new Map<string, Hex>()
  let running = false
  let stopped = false

  async function check() {
    const status = await rpc<{ queued: Hex }>('txpool_status')
    if (Number(status.queued) === 0) return void (suspects = new Map())
    const content = await rpc<PoolContent>('txpool_content')
    const seen = new Map<string, Hex>()
    for (const [sender, queued] of Object.entries(content.queued)) {
      const lowest = Object.values(queued).sort((a, b) => Number(a.nonce) - Number(b.nonce))[0]
      if (!lowest) continue
      const next = Number(await rpc<Hex>('eth_getTransactionCount', [sender, 'latest']))
      if (Number(lowest.nonce) !== next) continue
      if (stopped) return
      if (suspects.get(sender) === lowest.hash)
        await requeue(sender, [...Object.values(content.pending[sender] ?? {}), ...Object.values(queued)])
      else seen.set(sender, lowest.hash)
    }
    suspects = seen
  }

  async function requeue(sender: string, transactions: RpcTransaction[]) {
    const raws = transactions.sort((a, b) => Number(a.nonce) - Number(b.nonce)).map((tx) => ({ tx, raw: reencode(tx) }))
    if (raws.some(({ tx, raw }) => raw === undefined || keccak256(raw) !== tx.hash)) return
    // A guard whose Anvil exited meanwhile stops here: a new Anvil may listen on the same URL, and the transactions
    // read from the old one's pool must never reach it (their nonces are the old chain's).
    if (stopped) return
    await rpc('anvil_removePoolTransactions', [sender])
    for (const { raw } of raws) {
      if (stopped) return
      await rpc('eth_sendRawTransaction', [raw]).catch(() => {})
    }
    log(
      `svc: Anvil left ${raws.length} transaction(s) of ${sender} unmined (foundry-rs/foundry#10122): sent them again`,
    )
  }

  const timer = setInterval(() => {
    if (running || stopped) return
    running = true
    check()
      .catch(() => {})
      .finally(() => (running = false))
  }, intervalMs)
  timer.unref()
  return {
    stop() {
      stopped = true
      clearInterval(timer)
    },
  }
}

/** The signed transaction as it was sent, from its JSON-RPC form; undefined for a type it does not know. */
function reencode(tx: RpcTransaction): Hex | undefined {
  const big = (key: string) => (tx[key] === undefined || tx[key] === null ? undefined : BigInt(tx[key] as string))
  const type = Number(tx.type ?? '0x0')
  const common = {
    chainId: tx.chainId ? Number(tx.chainId) : undefined,
    nonce: Number(tx.nonce),
    gas: big('gas'),
    to: (tx.to ?? null) as Hex | null,
    value: big('value'),
    data: tx.input as Hex,
  }
  const signature: Signature = {
    r: tx.r as Hex,
    s: tx.s as Hex,
    ...(type === 0 ? { v: big('v')! } : { yParity: Number(tx.yParity ?? tx.v) }),
  }
  const accessList = (tx.accessList ?? []) as TransactionSerializable['accessList']
  let serializable: TransactionSerializable
  if (type === 0) serializable = { ...common, type: 'legacy', gasPrice: big('gasPrice') }
  else if (type === 1)
    serializable = { ...common, type: 'eip2930', gasPrice: big('gasPrice'), accessList, chainId: Number(tx.chainId) }
  else if (type === 2)
    serializable = {
      ...common,
      type: 'eip1559',
      maxFeePerGas: big('maxFeePerGas'),
      maxPriorityFeePerGas: big('maxPriorityFeePerGas'),
      accessList,
      chainId: Number(tx.chainId),
    }
  else return undefined
  try {
    return serializeTransaction(serializable, signature)
  } catch {
    return undefined
  }
}
