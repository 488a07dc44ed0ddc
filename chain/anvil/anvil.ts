import '../../core/polyfill.js'
import { createServer } from 'node:net'
import { Instance } from 'prool'
import { SvcError } from '../../core/errors.js'
import { sandboxChainId } from '../../core/sandbox-usdc.js'
import { resolveAnvilBinary } from './binary.js'
import { removeAnvilPidFile, writeAnvilPidFile } from './pid-file.js'
import { startBatchMiner, type BatchMiner } from '../relay/miner.js'
import { startPoolGuard } from '../relay/pool-guard.js'
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
   * (chain/relay/pool-guard.ts). Needed under `--no-mining` too: svc's relayers keep one transaction in flight each
   * and are not caught, but any other sender that pipelines is: test/bench/relay-guards.ts left 51–74 of 2,000
   * unmined with 16 in flight from one account and no guard, and `npm run bench -- --only issue_11` without the guard
   * stalled for good in its chain-limit step (1,000 pre-signed transfers, 16 in flight from one account, on svc's
   * grown chain). @defaultValue true
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
  mine(sent?: Promise<unknown>): Promise<void>
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
 * Starts Anvil through prool and resolves once it listens; with it, a watchdog that stops Anvil if this process
 * dies without stopping it.
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

  const instance = Instance.anvil({
    binary,
    host,
    port,
    chainId,
    mnemonic,
    accounts: devAccountCount,
    ...anvilTuning(forkUrl),
    ...(forkUrl ? { forkUrl } : {}),
    ...(mining === 'batched' ? { noMining: true } : {}),
    ...extraArgs,
  })

  let resolveExit!: (value: { code: number | null; signal: string | null }) => void
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => (resolveExit = resolve))
  instance.on('exit', (code, signal) => resolveExit({ code, signal }))

  const starting = instance.start()
  // prool has no public pid: an Instance offers its host, port, url, status, messages and events, and Anvil's child
  // process only as `_internal.process` (typed for anvil). It spawns synchronously, so the pid is known at once.
  const pid = instance._internal.process.pid
  const guard = watch && pid !== undefined ? startWatchdog(pid) : undefined
  if (pidFile && pid !== undefined) writeAnvilPidFile(pidFile, pid)
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
    cleanUp()
    // prool's error holds what Anvil wrote to stderr. prool stops Anvil at its first stderr chunk, so the reason can
    // be cut short ("Error" without the rest); collecting prool's stderr events got no more (measured: 40 starts).
    const detail = (error as Error).message.replace(/^Failed to start process "anvil":/, '').trim()
    throw new SvcError(`anvil failed to start (${binary}): ${detail}`, { cause: error })
  }
  // prool keeps Anvil's last messages; its banner ends with the address it listens on (with port 0, the one it chose).
  const listening = /Listening on [^\s:]+:(\d+)/.exec(instance.messages.get().join(''))
  const listeningPort = listening ? Number(listening[1]) : port
  if (!listeningPort) throw new Error('anvil started but did not say which port it listens on')
  const rpcUrl = `http://${host}:${listeningPort}`
  if (poolGuard && !cleaned) pool = startPoolGuard(rpcUrl, { log })
  if (mining === 'batched') {
    miner = startBatchMiner(rpcUrl)
    try {
      await miner
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
    mine: (sent) => miner?.then((m) => m?.mine(sent)) ?? Promise.resolve(),
    stop() {
      // prool drops its exit listener when asked to stop: clean up once the process is gone. The miner goes first: its
      // WebSocket would otherwise try to reconnect to the stopped Anvil (and log ECONNREFUSED).
      stopped ??= Promise.resolve(miner?.then((m) => m?.stop()))
        .catch(() => {})
        .then(() => endProcess(pid, exited, cleaned))
        .then(() => instance.stop())
        .catch(() => {})
        .finally(cleanUp)
      return stopped
    },
  }
}

/**
 * Ends Anvil before prool's `stop()` does. prool's stop removes execa's own exit listener, so execa's 5 s force-kill
 * timer is never cleared and keeps the caller's process alive 5 s after a sandbox stopped; a process already gone
 * is not signalled by prool, and no timer starts. SIGKILL if Anvil ignores SIGTERM for 5 s.
 */
async function endProcess(pid: number | undefined, exited: Promise<unknown>, gone: boolean): Promise<void> {
  if (pid === undefined || gone) return
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(pid, name)
    } catch {}
  }
  signal('SIGTERM')
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    exited,
    new Promise<void>((resolve) => {
      timer = setTimeout(() => resolve(signal('SIGKILL')), 5_000)
    }),
  ])
  clearTimeout(timer)
  await exited
}
