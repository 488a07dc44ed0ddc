import { EventEmitter } from 'node:events'
import { setTimeout as delay } from 'node:timers/promises'
import { createPublicClient, createTestClient, http, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { createRpcTransport, createTxSender, relayMining } from './relay/index.js'
import {
  type AnvilProcess,
  anvilStateArgs,
  chainFileError,
  distrustExitDump,
  newExitDumpPath,
  prepareChainState,
  saveChainState,
  startAnvil,
  stateIntervalSeconds,
  trustedExitDump,
  trustExitDump,
} from './anvil/index.js'
import { devAccountKeys, relayerPoolKeys, sandboxMnemonic } from './constants.js'
import { sandboxChainId, sandboxNetwork } from '../core/sandbox-usdc.js'
import { sandboxChain } from './viem-chain.js'
import { createUsdcFunder, installContracts } from './install-contracts.js'
import { getOrCreateEpoch } from './epoch.js'
import { pausePoint } from '../core/pause-point.js'
import type { ChainEvents, SandboxChain, SavedState, StartChainOptions, UsdcInfo } from './sandbox-chain.js'

/**
 * Starts the sandbox chain: Anvil (through prool) at chain id 845320402 with USDC and Multicall3 installed, and a
 * supervisor that notices when Anvil dies or its state is reset, starts it again and reinstalls the contracts.
 */
export async function startChain(options: StartChainOptions = {}): Promise<SandboxChain> {
  const started = performance.now()
  const {
    healthIntervalMs = 1_000,
    anvil: starting,
    statePath,
    freshChain = false,
    relay = 'tuned',
    twin,
    ...rest
  } = options
  const chainId = twin?.chainId ?? sandboxChainId
  const usdcSpec = twin && { address: twin.usdc.address, name: twin.usdc.name }
  const install = () =>
    installContracts({ client, testClient, minter }, { offline: !anvilOptions.forkUrl, usdc: usdcSpec })
  const anvilOptions = { ...rest, mining: rest.mining ?? relayMining(relay) }
  const persist = statePath !== undefined && !anvilOptions.forkUrl
  const log = anvilOptions.log ?? ((message: string) => console.error(message))
  /** The exit dump of the Anvil that holds the chain now (chain/anvil/state-file.ts). */
  let exitDump: string | undefined
  /** The state arguments of a new Anvil; its exit dump is trusted once it holds the chain ({@link trustNow}). */
  const stateArgs = (loadState: string | undefined): Record<string, unknown> => {
    if (!persist) return {}
    exitDump = newExitDumpPath(statePath)
    return anvilStateArgs(loadState, exitDump)
  }
  let held = 0
  const trustNow = () => {
    if (persist && exitDump && held === 0) trustExitDump(statePath, exitDump)
  }
  let anvil: AnvilProcess
  let accounts: SandboxChain['accounts']
  if (starting) {
    accounts = ownAccounts()
    anvil = await starting
    if (persist) exitDump = trustedExitDump(statePath)
  } else {
    const prepared = persist ? prepareChainState(statePath, { fresh: freshChain }) : undefined
    if (prepared?.note) log(`svc: ${prepared.note}`)
    const spawning = startAnvil({
      ...anvilOptions,
      extraArgs: { ...anvilOptions.extraArgs, ...stateArgs(prepared?.loadState) },
      chainId,
      mnemonic: sandboxMnemonic,
    })
    accounts = ownAccounts()
    anvil = await spawning
    trustNow()
  }
  const rpcUrl = anvil.rpcUrl
  const chain = sandboxChain(rpcUrl, twin && { id: twin.chainId, name: `svc twin of ${twin.name}` })
  const transport = relay === 'tuned' ? createRpcTransport(rpcUrl) : http(rpcUrl)
  const client = createPublicClient({ chain, transport, pollingInterval: 20 }) as PublicClient
  const testClient = createTestClient({ chain, transport, mode: 'anvil' })
  /** Changes whenever the chain goes away or comes back (SandboxChain.era). */
  let era = 0
  const minter = createTxSender({ client, account: accounts.minter, chainId, era: () => era })
  let usdc: UsdcInfo
  let epoch: string
  try {
    ;[usdc, epoch] = await Promise.all([install(), getOrCreateEpoch({ client, testClient })])
  } catch (error) {
    await anvil.stop()
    throw error
  }
  const usdcFunder = createUsdcFunder({ client, testClient, minter }, () => usdc)

  let saving: Promise<void> | undefined
  /** Writes the chain to `file`, or to `state.json` (the previous copy kept); errors are thrown. */
  const saveTo = (file?: string) =>
    saveChainState(anvil.rpcUrl, file ?? (statePath as string), { keepPrevious: file === undefined })
  const savePeriodically = () => {
    if (saving || held > 0 || restarting || startingProcess || stopping) return
    saving = saveTo()
      .catch((error: unknown) =>
        log(`svc: the chain could not be saved (the last good copy stays): ${chainFileError(error)}`),
      )
      .finally(() => (saving = undefined))
  }
  // A fresh chain replaces the saved one at once (its first save), not 30 s later.
  if (persist && freshChain) await saveTo().catch(() => {})
  const saver = persist ? setInterval(savePeriodically, stateIntervalSeconds * 1_000) : undefined
  saver?.unref()
  const savedState: SavedState | undefined = persist
    ? {
        path: statePath,
        save: saveTo,
        hold() {
          held++
          distrustExitDump(statePath)
          let released = false
          return () => {
            if (released) return
            released = true
            held--
            trustNow()
          }
        },
      }
    : undefined
  const readyMs = performance.now() - started

  const emitter = new EventEmitter<ChainEvents>()
  let generation = 0
  let stopping = false
  let restarting = false
  let recovering: Promise<void> | undefined

  /**
   * Takes every transaction of svc's own senders (the minter, the relayers) out of the pool of a chain that came back
   * empty: sent for the chain that is gone (their nonces are its), they would wait there for ever, or mine later as
   * surprises once the new chain's nonce reaches theirs.
   */
  const dropOwnPool = () =>
    Promise.all(
      [accounts.minter, ...accounts.relayers].map((account) =>
        testClient.request({ method: 'anvil_removePoolTransactions' as never, params: [account.address] as never }),
      ),
    )

  function recover(reason: string): Promise<void> {
    recovering ??= (async () => {
      restarting = true
      era += 1
      try {
        minter.reset()
        await dropOwnPool()
        ;[usdc, epoch] = await Promise.all([install(), getOrCreateEpoch({ client, testClient })])
        // A send of the old chain's still on its way when the new one began listening is not left there either.
        await dropOwnPool()
        era += 1
        generation += 1
        restarting = false
        emitter.emit('restart', { generation, reason, epoch })
      } catch (error) {
        if (!stopping) emitter.emit('error', error as Error)
      }
    })().finally(() => (recovering = undefined))
    return recovering
  }

  /** Processes stopped on purpose by {@link restartKeepingState}: their exit is not a crash. */
  const retired = new WeakSet<AnvilProcess>()
  function watchExit(process: AnvilProcess) {
    process.exited.then(async () => {
      if (stopping || process !== anvil || retired.has(process)) return
      restarting = true
      // What is sent from now on would reach the next Anvil with this chain's nonces.
      era += 1
      await restartProcess('anvil exited')
    })
  }

  /** True while a new Anvil process starts: it listens, empty, before its restart is done (not a reset to report). */
  let startingProcess = false

  /** A new Anvil being started by {@link restartProcess}: `stop` waits for it, then stops it. */
  let spawning: Promise<void> | undefined

  async function restartProcess(reason: string) {
    // svc is stopping: an Anvil that exits now is not started again (it would outlive the stop, or hang it).
    if (stopping) return
    try {
      // A chain that died is started empty (its saved state may be older than what the ledger recorded since).
      startingProcess = true
      const next = (async () => {
        anvil = await startAnvil({
          ...anvilOptions,
          extraArgs: { ...anvilOptions.extraArgs, ...stateArgs(undefined) },
          port: anvil.port,
          chainId,
          mnemonic: sandboxMnemonic,
        })
        watchExit(anvil)
      })()
      spawning = next.catch(() => {})
      await next
      startingProcess = false
      if (stopping) return
      await recover(reason)
      // The new, empty chain is the chain now (the ledger moves to its epoch).
      trustNow()
    } catch (error) {
      if (!stopping) emitter.emit('error', error as Error)
    } finally {
      startingProcess = false
    }
  }
  watchExit(anvil)

  let reloading: Promise<{ ms: number }> | undefined
  function restartKeepingState(): Promise<{ ms: number }> {
    reloading ??= (async () => {
      if (recovering) await recovering
      const began = performance.now()
      // Payments and faucet calls wait from here: what reaches the chain after the dump would be lost.
      restarting = true
      era += 1
      const state = await testClient.dumpState().catch((error: unknown) => {
        restarting = false
        throw error
      })
      startingProcess = true
      try {
        const old = anvil
        retired.add(old)
        await old.stop()
        // The state is loaded over RPC. Until it is, the old Anvil's exit dump (written as it stopped) stays the
        // chain of the next start: the new Anvil's own dump counts only once it holds the state.
        anvil = await startAnvil({
          ...anvilOptions,
          extraArgs: { ...anvilOptions.extraArgs, ...stateArgs(undefined) },
          port: old.port,
          chainId,
          mnemonic: sandboxMnemonic,
        })
        watchExit(anvil)
        await pausePoint('chain-restart')
        await testClient.loadState({ state })
        trustNow()
        // Sent to the new Anvil before it held the chain: their nonces are the empty chain's. Their senders see them
        // dropped (TxDroppedError) and send again; the minter's nonce is read again.
        await testClient.request({ method: 'anvil_dropAllTransactions' as never, params: [] as never })
        minter.reset()
        era += 1
        const ms = performance.now() - began
        restarting = false
        emitter.emit('reload', { pid: anvil.pid, ms })
        return { ms }
      } catch (error) {
        // Whatever is listening now (or nothing) is restarted empty, as after a crash.
        void restartProcess('the restart that keeps the state failed')
        throw error
      } finally {
        startingProcess = false
      }
    })().finally(() => (reloading = undefined))
    return reloading
  }

  async function whenReady(timeoutMs: number): Promise<boolean> {
    const deadline = performance.now() + timeoutMs
    while (restarting || startingProcess) {
      const left = deadline - performance.now()
      if (left <= 0) return false
      // Polled: any number of callers wait at once, with no listener each.
      await delay(Math.min(left, 20))
    }
    return true
  }

  // A reset chain (anvil_reset, a new Anvil on the same port) has no token code: reinstall.
  const health = setInterval(async () => {
    if (stopping || recovering || startingProcess) return
    // Unreachable means the process is down: its exit handler restarts it.
    const code = await client.getCode({ address: usdc.address }).catch(() => 'unreachable' as const)
    // Asked again after the answer: a restart that keeps the state may have begun meanwhile (its new Anvil is empty
    // until the state is loaded).
    if ((code === undefined || code === '0x') && !startingProcess) await recover('chain state was reset')
  }, healthIntervalMs)
  health.unref()

  // A typed object literal (prool's Instance style): TypeScript checks the handle against SandboxChain.
  return {
    rpcUrl,
    chainId,
    network: twin?.network ?? sandboxNetwork,
    twin,
    chain,
    mode: anvilOptions.forkUrl ? 'fork' : 'offline',
    relay,
    get usdc() {
      return usdc
    },
    get restarting() {
      return restarting
    },
    get generation() {
      return generation
    },
    get era() {
      return era
    },
    get epoch() {
      return epoch
    },
    client,
    testClient,
    accounts,
    minter,
    usdcFunder,
    readyMs,
    get pid() {
      return anvil.pid
    },
    savedState,
    mine: (sent?: Promise<unknown>) => anvil.mine(sent),
    restartKeepingState,
    whenReady,
    async stop() {
      stopping = true
      clearInterval(health)
      clearInterval(saver)
      await saving
      // A restart under way ends first (bounded: each of its steps is), so the Anvil it starts is the one stopped.
      await reloading?.catch(() => {})
      await spawning
      // svc writes the chain itself on the way out (durably); Anvil's exit dump stays the fallback if it cannot.
      if (savedState && held === 0 && !restarting)
        await saveTo().then(
          () => distrustExitDump(savedState.path),
          (error: unknown) => log(`svc: the chain could not be saved on stop: ${chainFileError(error)}`),
        )
      await anvil.stop()
    },
    on: emitter.on.bind(emitter),
    once: emitter.once.bind(emitter),
    off: emitter.off.bind(emitter),
  }
}

/**
 * svc's own accounts (the minter, the relayers), derived while Anvil boots: each public key is a few milliseconds of
 * JavaScript, the first one ten times that (the curve's tables), which would otherwise wait for Anvil to be up.
 */
function ownAccounts(): SandboxChain['accounts'] {
  const relayer = privateKeyToAccount(devAccountKeys.relayer)
  return {
    minter: privateKeyToAccount(devAccountKeys.minter),
    relayer,
    relayers: [relayer, ...relayerPoolKeys.map((key) => privateKeyToAccount(key))],
  }
}
