import { webSocket } from 'viem'
import { createAnvilRpc } from './anvil-rpc.js'

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
  mine(sent?: Promise<unknown>): Promise<void>
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
  let waiters: { ticket: number; sent: boolean; resolve: () => void }[] = []
  /** Wakes a block waiting for announced sends. */
  let onSent: (() => void) | undefined
  let lastDuration = 0
  const settle = (done: Set<number> | 'all') => {
    const leaving = waiters.filter((waiter) => done === 'all' || done.has(waiter.ticket))
    waiters = waiters.filter((waiter) => !leaving.includes(waiter))
    for (const waiter of leaving) waiter.resolve()
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
      if (!first && Number((await request<{ pending: string }>('txpool_status')).pending) === 0) {
        settle(covered)
        continue
      }
      const started = performance.now()
      await request('evm_mine')
      lastDuration = performance.now() - started
      settle(covered)
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

  const subscription = await transport.value!.subscribe({
    params: ['newPendingTransactions'],
    onData: mine,
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
      const waiter = { ticket, sent: sent === undefined, resolve: () => {} }
      const mined = new Promise<void>((resolve) => {
        waiter.resolve = resolve
        waiters.push(waiter)
      })
      if (stopped) settle('all')
      else if (sent === undefined) mine()
      else
        void sent
          .then(undefined, () => {})
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
