import { mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ChainServices, StartChainServicesOptions } from '../../chain/services.js'
import { startAnvil, type AnvilProcess } from '../../chain/anvil/anvil.js'
import { anvilStateArgs, newExitDumpPath, prepareChainState, trustExitDump } from '../../chain/anvil/state-file.js'
import { relayMining, relays } from '../../chain/relay/mode.js'
import { loadSqlite } from '../db/database.js'
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
import { loadServerModules, startServer, type RunningServer, type StartServerOptions } from './server.js'

/** Where a data dir keeps its chain's state (Anvil's dump). */
export const chainStatePath = (dataDir: string) => join(dataDir, 'chain', 'state.json')

export type StartSvcOptions = Omit<StartServerOptions, 'chain'> &
  Omit<StartChainServicesOptions, 'log' | 'anvil' | 'pidFile' | 'twinAnvils' | 'twinSpecs' | 'twinPidFile'> & {
    /**
     * Serve the sample upstream of the demo seed (fixtures/demo-upstream.ts) on a listener of its own; its URL is
     * `demoUpstreamUrl`. Only a seed that names `{{demo_upstream}}` asks for it. @defaultValue false
     */
    demoUpstream?: boolean | undefined
    /** Called with start-up progress lines. */
    onProgress?: ((line: string) => void) | undefined
  }

export type RunningSvc = {
  chain: ChainServices
  server: RunningServer
  /** `http://127.0.0.1:PORT` of the demo upstream, when `demoUpstream` asked for it. */
  demoUpstreamUrl?: string | undefined
  stop(): Promise<void>
}

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
 * The composition root: the sandbox chain (Anvil, chain manager, facilitator) and the server (control planes and
 * gateway), started together; `stop` ends both, Anvil included, and closes the database. The data dir holds a lock
 * and Anvil's pid while it runs (ephemeral: a temporary directory, removed on stop), so the next start can stop an
 * Anvil that a crashed run left behind.
 */
export async function startSvc(options: StartSvcOptions = {}): Promise<RunningSvc> {
  const {
    dataDir: askedDataDir,
    port,
    autoVerify,
    productionFacilitatorUrl,
    rpc,
    rpcLogBlocks,
    reapEveryMs,
    dnsServers,
    authThrottle,
    paidRoutes,
    busyTimeoutMs,
    schemaProbeTimeoutMs,
    demoUpstream,
    log,
    onProgress = () => {},
    clock = createClock(),
    listenHost,
    domains,
    publicOrigin,
    database,
    secrets,
    trust,
    ...chainOptions
  } = options
  // Before anything starts: an install without the SQLite binding is told so at once, not after Anvil is up.
  loadSqlite()
  if (chainOptions.relay !== undefined && !relays.includes(chainOptions.relay))
    throw new UsageError(`--relay must be one of ${relays.join(', ')}, not "${chainOptions.relay}"`)
  // Bad twin input (an unknown name, a fork URL of another chain) is refused before anything starts.
  const { resolveTwins } = await import('../../core/twins.js')
  const twinSpecs = await resolveTwins(chainOptions.twins, chainOptions.twinForkUrl)
  ;(await import('../journal/index.js')).parseRpcUrls(rpc)
  const lock = await claimDataDir(askedDataDir, log ?? (() => {})).catch((error: unknown) => {
    throw dataDirStorageError(askedDataDir ?? tmpdir(), error) ?? error
  })
  const { dataDir } = lock
  let anvil: Promise<AnvilProcess> | undefined
  /** The twins' Anvils, booted beside the Sandbox chain's (chain/twin.ts installs their contracts). */
  const twinAnvils: Record<string, Promise<AnvilProcess>> = {}
  let chain: ChainServices | undefined
  let server: RunningServer | undefined
  let demo: Listening | undefined
  try {
    onProgress('starting the chain (Anvil), the chain manager and the facilitator…')
    // Anvil boots in its own process while the chain services' and the server's modules load. With a data dir of
    // its own (not --ephemeral) the chain is kept beside the database; a fork starts from its URL each run.
    const { binary, host, forkUrl, extraArgs, watchdog, rpcPort, freshChain, relay, mining } = chainOptions
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
      host,
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
        host,
        forkUrl: chainOptions.twinForkUrl,
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
    chain = await startChainServices({
      receiverAuthorizerKey: loadReceiverAuthorizerKey(dataDir),
      ...chainOptions,
      statePath,
      anvil,
      twinAnvils,
      twinSpecs,
      twinPidFile: lock.twinAnvilPidFile,
      pidFile: lock.anvilPidFile,
      log,
      clock,
    })
    onProgress('opening the database and starting the control plane…')
    server = await startServer({
      dataDir,
      port,
      chain,
      autoVerify,
      productionFacilitatorUrl,
      rpc,
      rpcLogBlocks,
      reapEveryMs,
      dnsServers,
      authThrottle,
      paidRoutes,
      busyTimeoutMs,
      schemaProbeTimeoutMs,
      log,
      clock,
      listenHost,
      domains,
      publicOrigin,
      database,
      secrets,
      trust,
    })
    if (demoUpstream) {
      const { startDemoUpstream } = await import('../../fixtures/demo-upstream.js')
      demo = await startDemoUpstream()
    }
    let stopped: Promise<void> | undefined
    const running = { chain, server }
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
    await demo?.close()
    await server?.stop()
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
