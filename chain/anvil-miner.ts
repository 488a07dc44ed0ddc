import { webSocket } from 'viem'
import { createAnvilRpc } from './anvil-rpc.js'

export type BatchMiner = {
  /**
   * Mines the transactions waiting now without waiting for Anvil's notification: resolves once a block mined after
   * this call is in (or the pool was seen empty, every waiting transaction mined already). A sender that calls it
   * right after its transaction entered the pool gets it mined at once when the chain is idle, and together with
   * the others under load.
   */
  mine(): Promise<void>
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
 * grows with the chain's state (about 1 ms per 1,000 storage slots; every payment adds one, its EIP-3009 nonce).
 * Fewer, fuller blocks keep the chain's rate up as it grows: 16 transfers in flight from one sender made 15.6
 * transactions a block (automine: 1.4) and 10,000 of them ran at 326 → 279 tx/s (automine: 475 → 132).
 *
 * A lone transaction waits for the notification and the `evm_mine` round trip, 3 to 5 ms against 1.4 ms with
 * automine; senders that call {@link BatchMiner.mine} right after sending skip that wait (svc's relayer does).
 */
let miners = 0

/** How often the pool is looked at for ready transactions no notification announced. */
const sweepIntervalMs = 1_000

export async function startBatchMiner(rpcUrl: string): Promise<BatchMiner> {
  // A URL of its own: viem keeps one socket per URL, and an Anvil restarted on the same port needs a new one.
  const socketUrl = `${rpcUrl.replace(/^http/, 'ws')}/?miner=${++miners}`
  const transport = webSocket(socketUrl, { keepAlive: false, retryCount: 0, timeout: 60_000 })({})
  let mining: Promise<void> | undefined
  let again = false
  let stopped = false
  /** Calls of `mine()` so far, and who waits for a block that covers theirs. */
  let requested = 0
  let waiters: { ticket: number; resolve: () => void }[] = []
  const settle = (covered: number) => {
    const done = waiters.filter((waiter) => waiter.ticket <= covered)
    waiters = waiters.filter((waiter) => waiter.ticket > covered)
    for (const waiter of done) waiter.resolve()
  }

  // Requests go over HTTP: on the WebSocket, Anvil's answer and the next notification would meet Nagle's algorithm
  // (a notification held ~40 ms until the answer before it is acknowledged).
  const request = createAnvilRpc(rpcUrl, { timeoutMs: 60_000 })

  async function mineWhileWaiting() {
    for (let first = true; first || again; first = false) {
      again = false
      // Every transaction in the pool now (those of `mine()` calls so far) goes into this block.
      const covered = requested
      // A repeat block only for transactions that are still waiting (those that arrived during the last one may be in it).
      if (!first && Number((await request<{ pending: string }>('txpool_status')).pending) === 0) {
        settle(covered)
        continue
      }
      await request('evm_mine')
      settle(covered)
    }
  }

  function mine() {
    if (stopped) return
    if (mining) return void (again = true)
    mining = mineWhileWaiting()
      // A failed round (Anvil gone) leaves no one waiting: the senders find out from their receipts.
      .catch(() => settle(requested))
      .finally(() => {
        mining = undefined
        // Asked for between the last round and here.
        if (again) {
          again = false
          mine()
        }
      })
  }

  const subscription = await transport.value!.subscribe({ params: ['newPendingTransactions'], onData: mine, onError: () => {} })
  // Transactions that were already waiting (none on a fresh chain).
  mine()
  // A safety net for a notification that never came (a socket hiccup, a transaction put back by the pool guard
  // under load): ready transactions still waiting a second later are mined.
  const sweep = setInterval(() => {
    if (mining || stopped) return
    void request<{ pending: string }>('txpool_status').then((status) => Number(status.pending) > 0 && mine(), () => {})
  }, sweepIntervalMs)
  sweep.unref()
  return {
    mine() {
      const ticket = ++requested
      const mined = new Promise<void>((resolve) => waiters.push({ ticket, resolve }))
      if (stopped) settle(requested)
      else mine()
      return mined
    },
    async stop() {
      stopped = true
      clearInterval(sweep)
      settle(requested)
      await subscription.unsubscribe().catch(() => {})
      ;(await transport.value!.getRpcClient()).close()
    },
  }
}
