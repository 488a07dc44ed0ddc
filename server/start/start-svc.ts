import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChainServices } from '../../chain/services.js'
import { startAnvil, type AnvilProcess } from '../../chain/anvil/anvil.js'
import { anvilStateArgs, newExitDumpPath, prepareChainState, trustExitDump } from '../../chain/anvil/state-file.js'
import { relayMining, relays } from '../../chain/relay/mode.js'
// The SQLite binding alone: the database's modules load while Anvil boots (server.ts `loadServerModules`).
import { loadSqlite } from '../db/sqlite-binding.js'
import { UsageError } from '../../core/errors.js'
import { createClock } from '../../core/clock.js'
import type { Listening } from '../../core/http.js'
import { privateDirMode } from '../data-dir/permissions.js'
import { dataDirStorageError } from '../data-dir/storage-errors.js'
import {
  createEphemeralDataDir,
  lockDataDir,
  removeStaleEphemeralDataDirs,
  type DataDirLock,
} from '../data-dir/lock.js'
import { loadServerModules, openServer, type ServerSetup } from './server.js'
import type { AnyStartOptions, RunningServer, RunningSvc, StartSvcOptions, SvcMode } from './options.js'

/** Where a data dir keeps its chain's state (Anvil's dump). */
export const chainStatePath = (dataDir: string) => join(dataDir, 'chain', 'state.json')

/** Claims the data dir (an ephemeral one when none is given), after cleaning up what crashed runs left behind. */
export async function claimDataDir(
  dataDir: string | undefined,
  log: (line: string) => void,
): Promise<DataDirLock & { dataDir: string }> {
  const stale = await removeStaleEphemeralDataDirs()
  let lock: DataDirLock & { dataDir: string }
  if (dataDir === undefined) lock = await createEphemeralDataDir()
  else {
    mkdirSync(dataDir, { recursive: true, mode: privateDirMode })
    lock = { ...(await lockDataDir(dataDir)), dataDir }
  }
  for (const anvil of [...stale, ...(lock.staleAnvil ? [lock.staleAnvil] : []), ...lock.staleTwinAnvils])
    log(`svc: stopped the Anvil (pid ${anvil.pid}) that a crashed svc left running`)
  return lock
}

/**
 * The composition root, the one start-up of svc (`svc up`, `svc serve`, the SDK's `startSandbox()`, tests): the mode
 * decides what starts (options.ts `SvcMode`). `up` and `serve --sandbox-chain local` start the Sandbox chain (Anvil,
 * chain manager, facilitator) and the server together; `stop` ends both, Anvil included, and closes the database.
 * The data dir holds a lock and Anvil's pid while it runs (ephemeral: a temporary directory, removed on stop), so the
 * next start can stop an Anvil that a crashed run left behind.
 */
export async function startSvc<M extends SvcMode>(options: StartSvcOptions<M>): Promise<RunningSvc<M>> {
  const running: RunningSvc = await start(options)
  return running as RunningSvc<M>
}

async function start(options: AnyStartOptions): Promise<RunningSvc> {
  if (options.mode === 'server') {
    const server = await openServer(options)
    return { server, chain: options.chain, stop: () => server.stop() }
  }
  if (options.mode === 'up') return await startWithChain(options)
  if (options.mode !== 'serve')
    throw new UsageError(`startSvc: mode must be up, serve or server, not "${options.mode}"`)
  // `svc serve`'s flags and its shared chain: loaded for serve only (its database URLs load the database's modules).
  const { checkServe } = await import('./serve.js')
  const { setup, sandboxChain } = await checkServe(options)
  if (sandboxChain === 'local') return await startWithChain(options, setup)
  return await startWithoutChain(options, setup, sandboxChain)
}

/**
 * `svc serve --sandbox-chain none|shared`. None: production only, no Anvil, no chain services; Sandbox APIs answer
 * 503 until a chain is run somewhere. Shared: the chain is started here only while this process owns it
 * (server/cluster/shared-chain.ts).
 */
async function startWithoutChain(
  options: AnyStartOptions,
  setup: ServerSetup,
  sandboxChain: 'none' | 'shared',
): Promise<RunningSvc> {
  loadSqlite()
  const lock = await claimDataDir(options.dataDir, options.log ?? (() => {}))
  options.onProgress?.(
    sandboxChain === 'shared'
      ? 'opening the database and starting the control plane (the Sandbox chain is shared: taking it if nobody owns it)…'
      : 'opening the database and starting the control plane (no Sandbox chain)…',
  )
  let running: RunningServer | undefined
  try {
    running = await openServer(
      { ...options, chain: undefined, sharedChain: sandboxChain === 'shared' ? {} : undefined },
      setup,
    )
    const shared =
      sandboxChain === 'shared' ? await (await import('./serve.js')).startShared(running, options, lock) : undefined
    const started = running
    return {
      server: started,
      chain: shared?.chain,
      sharedChain: shared,
      async stop() {
        await shared?.stop()
        await started.stop()
        lock.release()
      },
    }
  } catch (error) {
    await running?.stop()
    lock.release()
    throw error
  }
}

/** `up` and `serve --sandbox-chain local`: the chain part (Anvil booted first), then the server part on it. */
async function startWithChain(options: AnyStartOptions, setup?: ServerSetup): Promise<RunningSvc> {
  const { dataDir: askedDataDir, log, onProgress = () => {}, clock = createClock() } = options
  // Before anything starts: an install without the SQLite binding is told so at once, not after Anvil is up.
  loadSqlite()
  if (options.relay !== undefined && !relays.includes(options.relay))
    throw new UsageError(`--relay must be one of ${relays.join(', ')}, not "${options.relay}"`)
  // Bad twin input (an unknown name, a fork URL of another chain) is refused before anything starts.
  const { resolveTwins } = await import('../../core/twins.js')
  const twinSpecs = await resolveTwins(options.twins, options.twinForkUrl)
  ;(await import('../journal/production-chains.js')).parseRpcUrls(options.rpc)
  const lock = await claimDataDir(askedDataDir, log ?? (() => {})).catch((error: unknown) => {
    throw dataDirStorageError(askedDataDir ?? tmpdir(), error) ?? error
  })
  const { dataDir } = lock
  let anvil: Promise<AnvilProcess> | undefined
  /** The twins' Anvils, booted beside the Sandbox chain's (chain/twin.ts installs their contracts). */
  const twinAnvils: Record<string, Promise<AnvilProcess>> = {}
  let chain: ChainServices | undefined
  let chainStarting: Promise<ChainServices> | undefined
  let server: RunningServer | undefined
  let demo: Listening | undefined
  let demoStarting: Promise<Listening> | undefined
  try {
    onProgress('starting the chain (Anvil), the chain manager and the facilitator…')
    // Anvil boots in its own process while the chain services' and the server's modules load. With a data dir of
    // its own (not --ephemeral) the chain is kept beside the database; a fork starts from its URL each run.
    const { binary, forkUrl, extraArgs, watchdog, rpcPort, freshChain, relay, mining } = options
    const statePath = askedDataDir === undefined || forkUrl ? undefined : chainStatePath(askedDataDir)
    if (statePath !== undefined) {
      const { finishInterruptedRevert } = await import('../sandbox/index.js')
      const finished = finishInterruptedRevert(dataDir, statePath)
      if (finished) (log ?? console.error)(`svc: ${finished}`)
    }
    // Which saved chain to load (chain/anvil/state-file.ts); the new Anvil's exit dump counts once it has loaded it.
    const prepared = statePath === undefined ? undefined : prepareChainState(statePath, { fresh: freshChain })
    if (prepared?.note) (log ?? console.error)(`svc: ${prepared.note}`)
    const exitDump = statePath === undefined ? undefined : newExitDumpPath(statePath)
    const stateArgs = exitDump === undefined ? {} : anvilStateArgs(prepared?.loadState, exitDump)
    anvil = startAnvil({
      binary,
      forkUrl,
      extraArgs: { ...extraArgs, ...stateArgs },
      watchdog,
      port: rpcPort,
      pidFile: lock.anvilPidFile,
      mining: mining ?? relayMining(relay),
    }).then((process) => {
      if (statePath !== undefined && exitDump !== undefined) trustExitDump(statePath, exitDump)
      return process
    })
    anvil.catch(() => {})
    for (const spec of twinSpecs) {
      twinAnvils[spec.name] = startAnvil({
        binary,
        forkUrl: options.twinForkUrl,
        watchdog,
        pidFile: lock.twinAnvilPidFile(spec.name),
        chainId: spec.chainId,
        mining: mining ?? relayMining(relay),
      })
      twinAnvils[spec.name]!.catch(() => {})
    }
    loadServerModules().catch(() => {})
    const { startChainServices } = await import('../../chain/services.js')
    const { loadReceiverAuthorizerKey } = await import('../data-dir/secrets.js')
    // The database opens (and its modules load) while the chain installs its contracts; the server attaches the
    // chain once it is up. What needs only the chain (options.onChain) starts then.
    chainStarting = startChainServices({
      receiverAuthorizerKey: loadReceiverAuthorizerKey(dataDir),
      // The one options object: chain/services.ts reads its own (the listener's `port` is not Anvil's: `rpcPort` is).
      ...options,
      statePath,
      anvil,
      twinAnvils,
      twinSpecs,
      twinPidFile: lock.twinAnvilPidFile,
      pidFile: lock.anvilPidFile,
      log,
      clock,
    }).then((started) => {
      chain = started
      options.onChain?.(started)
      return started
    })
    chainStarting.catch(() => {})
    // The demo upstream (a seed's) starts beside them too.
    demoStarting = options.demoUpstream
      ? import('../../fixtures/demo-upstream.js').then(({ startDemoUpstream }) => startDemoUpstream())
      : undefined
    demoStarting?.catch(() => {})
    onProgress('opening the database and starting the control plane…')
    server = await openServer({ ...options, dataDir, clock }, setup, chainStarting)
    demo = await demoStarting
    let stopped: Promise<void> | undefined
    // Up: the server attached it.
    const running = { chain: await chainStarting, server }
    return {
      ...running,
      demoUpstreamUrl: demo?.url,
      stop() {
        stopped ??= (async () => {
          await demo?.close()
          await running.server.stop()
          await running.chain.stop()
          lock.release()
        })()
        return stopped
      },
    }
  } catch (error) {
    demo ??= await demoStarting?.catch(() => undefined)
    await demo?.close()
    await server?.stop()
    chain ??= await chainStarting?.catch(() => undefined)
    await chain?.stop()
    await Promise.all(
      [anvil, ...Object.values(twinAnvils)].map((starting) =>
        starting?.then(
          (process) => process.stop(),
          () => {},
        ),
      ),
    )
    lock.release()
    throw dataDirStorageError(dataDir, error) ?? error
  }
}
