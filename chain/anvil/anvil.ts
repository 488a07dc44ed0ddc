import '../../core/polyfill.js'
import { createServer } from 'node:net'
import { SvcError } from '../../core/errors.js'
import { sandboxChainId } from '../../core/sandbox-usdc.js'
import { resolveAnvilBinary } from './binary.js'
import { detachedAnvil } from './instance.js'
import { removeAnvilPidFile, writeAnvilPidFile } from './pid-file.js'
import type { BatchMiner, MinedReceipts } from '../relay/index.js'
import { startWatchdog } from './watchdog.js'
import { devAccountCount, sandboxMnemonic } from '../constants.js'

export { resolveAnvilBinary }

export type StartAnvilOptions = {
  /** Anvil binary. @defaultValue {@link resolveAnvilBinary}: the package for this machine, PATH, foundryup */
  binary?: string | undefined
  /** Port to listen on; 0 picks a free one. @defaultValue 0 */
  port?: number | undefined
  /** @defaultValue '127.0.0.1' */
  host?: string | undefined
  /** Fork this chain instead of starting empty. */
  forkUrl?: string | undefined
  /** @defaultValue 845320402 */
  chainId?: number | undefined
  /** @defaultValue Anvil's development mnemonic */
  mnemonic?: string | undefined
  /** Extra anvil arguments, as prool names them (camelCase). */
  extraArgs?: Record<string, unknown> | undefined
  /** A file to keep Anvil's pid in while it runs, so a later start can stop it after a crash. */
  pidFile?: string | undefined
  /**
   * Start a watchdog process that stops Anvil when this process is gone, even after `kill -9`.
   * @defaultValue true
   */
  watchdog?: boolean | undefined
  /**
   * Watch Anvil's pool for transactions automine left unmined (foundry-rs/foundry#10122) and send them again
   * (chain/relay/miner.ts, startPoolGuard). Needed under `--no-mining` too: svc's relayers keep one transaction in
   * flight each and are not caught, but any other sender that pipelines is: test/bench/relay-guards.ts left 51–74 of
   * 2,000 unmined with 16 in flight from one account and no guard, and `npm run bench -- --only issue_11` without the
   * guard stalled for good in its chain-limit step (1,000 pre-signed transfers, 16 in flight from one account, on
   * svc's grown chain). @defaultValue true
   */
  poolGuard?: boolean | undefined
  /**
   * `batched`: every transaction waiting when a block starts goes into it (chain/relay/miner.ts), so the chain mines
   * fewer, fuller blocks under load and keeps its rate as its state grows. `auto`: Anvil's automine, a block per
   * ready transaction as it comes. @defaultValue 'batched'
   */
  mining?: 'auto' | 'batched' | undefined
  /** Where the pool guard says what it re-sent. @defaultValue nowhere */
  log?: ((message: string) => void) | undefined
}

export type AnvilProcess = {
  rpcUrl: string
  host: string
  port: number
  /** Resolves when the process exits, for whatever reason. */
  exited: Promise<{ code: number | null; signal: string | null }>
  /** The OS process id, for tests that kill the chain on purpose. */
  pid: number | undefined
  /** With batched mining: mines what waits in the pool now (chain/relay/miner.ts); with automine there is nothing to do. */
  mine(sent?: Promise<unknown>): Promise<MinedReceipts>
  stop(): Promise<void>
}

/**
 * svc's settings of Anvil (prool's names), measured with test/bench/chain-growth.bench.ts (20,000 pre-signed
 * transfers; figures in the commit that set them):
 * - `pruneHistory: 8`: the states of the last 8 blocks are kept in memory, none written to disk. With 100 kept,
 *   Anvil's RSS reached 208 MB after 5,000 transfers against 80 MB, at half the rate. With none kept, a read of
 *   `latest` fails when a block is mined between Anvil naming the latest block and reading its state ("the chain
 *   did not answer the balance query" from the faucet under concurrent funding).
 * - `hardfork: 'cancun'` (offline chains; a fork keeps its chain's): the contracts are compiled for Cancun, and from
 *   Prague on every block writes its parent hash into the EIP-2935 history contract, 8,191 storage slots that Anvil
 *   hashes again into the state root of every block: empty blocks went from 1 ms to 9 ms after 8,000 blocks.
 * - `transactionBlockKeeper`: transactions, receipts and logs of the last 5,000 blocks are kept (about 6.5 kB each
 *   with their traces), so memory and the 30 s state dump stop growing with the chain's age.
 */
function anvilTuning(forkUrl: string | undefined): Record<string, unknown> {
  return { pruneHistory: keptStates, transactionBlockKeeper: keptBlocks, ...(forkUrl ? {} : { hardfork: 'cancun' }) }
}

/** Past states Anvil keeps in memory. */
const keptStates = 8

/** Blocks whose transactions, receipts and logs Anvil keeps. */
export const keptBlocks = 5_000

/** Refuses a fixed port that another process holds, naming it (Anvil's own words do not reach prool's error). */
async function assertPortFree(host: string, port: number): Promise<void> {
  const server = createServer()
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') return resolve()
      reject(
        new SvcError(
          `the chain RPC port ${port} on ${host} is in use: stop what runs there, or pass --rpc-port 0 for a free port`,
          { cause: error },
        ),
      )
    })
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()))
  })
}

/**
 * Starts Anvil through prool (an instance svc spawns itself, in its own process group: chain/anvil/instance.ts) and
 * resolves once it listens; with it, a watchdog that stops Anvil if this process dies without stopping it.
 * @returns the RPC URL and a `stop` function.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilProcess> {
  const {
    port = 0,
    host = '127.0.0.1',
    forkUrl,
    chainId = sandboxChainId,
    mnemonic = sandboxMnemonic,
    extraArgs = {},
    pidFile,
    watchdog: watch = true,
    poolGuard = true,
    mining = 'batched',
    log,
  } = options
  const binary = options.binary ?? resolveAnvilBinary()
  if (port !== 0) await assertPortFree(host, port)

  let pid: number | undefined
  let resolveExit!: (value: { code: number | null; signal: string | null }) => void
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => (resolveExit = resolve))
  let guard: ReturnType<typeof startWatchdog> | undefined
  const instance = detachedAnvil({
    binary,
    host,
    port,
    args: {
      host,
      port,
      chainId,
      mnemonic,
      accounts: devAccountCount,
      ...anvilTuning(forkUrl),
      ...(forkUrl ? { forkUrl } : {}),
      ...(mining === 'batched' ? { noMining: true } : {}),
      ...extraArgs,
    },
    // The pid is this spawn's own, known at once: the watchdog and the pid file start before Anvil listens.
    onSpawn(child) {
      pid = child.pid
      child.once('exit', (code, signal) => resolveExit({ code, signal }))
      // A process that could not be spawned emits 'error' and no 'exit'.
      child.once('error', () => resolveExit({ code: null, signal: null }))
      if (watch && pid !== undefined) guard = startWatchdog(pid)
      if (pidFile && pid !== undefined) writeAnvilPidFile(pidFile, pid)
    },
  })

  const starting = instance.start()
  // The pool guard's and the batch miner's modules (viem's, x402's) load while Anvil boots, not before it is spawned.
  const relay = import('../relay/index.js')
  relay.catch(() => {})
  let pool: { stop(): void } | undefined
  let miner: Promise<BatchMiner | undefined> | undefined
  let cleaned = false
  const cleanUp = () => {
    if (cleaned) return
    cleaned = true
    guard?.stop()
    pool?.stop()
    void miner?.then(
      (m) => m?.stop(),
      () => {},
    )
    if (pidFile && pid !== undefined) removeAnvilPidFile(pidFile, pid)
  }
  void exited.then(cleanUp)

  try {
    await starting
  } catch (error) {
    await exited
    cleanUp()
    throw new SvcError(`anvil failed to start (${binary}): ${(error as Error).message}`, { cause: error })
  }
  // With port 0, the port Anvil chose (its banner's "Listening on", read by the instance).
  const listeningPort = instance.port
  if (!listeningPort) throw new Error('anvil started but did not say which port it listens on')
  const rpcUrl = `http://${host}:${listeningPort}`
  const { startBatchMiner, startPoolGuard } = await relay
  if (poolGuard && !cleaned) pool = startPoolGuard(rpcUrl, { log })
  // The batch miner once it runs: every settlement's mine() goes straight to it (no promise of ours in between).
  let batchMiner: BatchMiner | undefined
  if (mining === 'batched') {
    miner = startBatchMiner(rpcUrl)
    try {
      batchMiner = await miner
    } catch (error) {
      await instance.stop().catch(() => {})
      cleanUp()
      throw new SvcError(`anvil started but its miner could not subscribe to it: ${(error as Error).message}`, {
        cause: error,
      })
    }
  }

  let stopped: Promise<void> | undefined
  return {
    rpcUrl,
    host,
    port: listeningPort,
    exited,
    pid,
    mine: batchMiner ? batchMiner.mine : () => Promise.resolve(undefined),
    stop() {
      // The miner goes first: its WebSocket would otherwise try to reconnect to the stopped Anvil (and log
      // ECONNREFUSED); once Anvil has exited, cleanUp has stopped it already. Bounded: its unsubscribe, sent to an
      // Anvil that died, is never answered, and with nothing else keeping the event loop alive svc exited 13 mid-stop.
      // The instance's stop ends the process (SIGTERM, then SIGKILL after 5 s) and waits for its exit.
      stopped ??= within(minerStopMs, cleaned ? undefined : miner?.then((m) => m?.stop()))
        .then(() => instance.stop())
        .catch(() => {})
        .then(() => exited)
        .finally(cleanUp)
        .then(() => {})
      return stopped
    },
  }
}

/** How long stopping the miner may take before Anvil is stopped anyway. */
const minerStopMs = 1_000

/** Resolves when `work` settles (whichever way) or after `ms`, whichever comes first. */
async function within(ms: number, work: Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    Promise.resolve(work).catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms)
    }),
  ])
  clearTimeout(timer)
}
