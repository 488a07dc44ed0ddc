import type { SandboxChain, StartChainOptions } from './sandbox-chain.js'
import { startChain } from './start-chain.js'
import { createChainManager, type ChainManager, type ChainManagerOptions } from './manager.js'
import { createFacilitator, type SandboxFacilitator } from './facilitator/index.js'
import { createFaultBook, type FaultBook } from './faults/index.js'
import type { Express } from 'express'
import { SvcError } from '../core/errors.js'
import type { AnvilProcess } from './anvil/index.js'
import { createClock, type Clock } from '../core/clock.js'
import { listen, type Listening } from '../core/http.js'
import { resolveTwins, type TwinSpec } from '../core/twins.js'
import { startTwin, twinOfNetwork, type RunningTwin } from './twin.js'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

export type StartChainServicesOptions = StartChainOptions &
  Pick<ChainManagerOptions, 'defaultEthWei' | 'defaultUsdcBase'> & {
    /** Port of the chain RPC (Anvil); 0 picks a free one. @defaultValue 0 */
    rpcPort?: number | undefined
    /** Port of the chain manager; 0 picks a free one. @defaultValue 0 */
    chainManagerPort?: number | undefined
    /** Port of the facilitator; 0 picks a free one. @defaultValue 0 */
    facilitatorPort?: number | undefined
    log?: ((message: string) => void) | undefined
    /** svc's clock, for the facilitator's check of authorization windows after time travel. @defaultValue a clock of its own */
    clock?: Clock | undefined
    /** Twins of testnets to start beside the Sandbox chain (core/twins.ts: `base-sepolia`). @defaultValue none */
    twins?: readonly string[] | undefined
    /** Fork the (one) twin from this RPC URL of the real testnet; its chain id must be the twin's. @defaultValue offline */
    twinForkUrl?: string | undefined
    /** The twins' Anvils, already starting, by twin name (startSvc boots them with the Sandbox chain's). */
    twinAnvils?: Record<string, Promise<AnvilProcess>> | undefined
    /** `twins` as startSvc resolved them before booting their Anvils: not checked again (a fork URL is asked once). */
    twinSpecs?: TwinSpec[] | undefined
    /** Where a twin's Anvil keeps its pid (restarts included), so the next start stops one a crash left running. */
    twinPidFile?: ((twin: string) => string) | undefined
    /** The batch-settlement receiver authorizer's key (startSvc: the install's). @defaultValue a new one */
    receiverAuthorizerKey?: Hex | undefined
  }

export type ChainServices = {
  sandboxChain: SandboxChain
  manager: ChainManager
  facilitator: SandboxFacilitator
  /** Faults injected into the Sandbox (`svc fault add`): the facilitator and the gateway read them. */
  faults: FaultBook
  /** The twins running beside the Sandbox chain (chain/twin.ts), in the order asked. */
  twins: RunningTwin[]
  rpcUrl: string
  chainManagerUrl: string
  facilitatorUrl: string
  /** svc's clock, shared with the server (`svc time advance` moves it with the chain's time). */
  clock: Clock
  stop(): Promise<void>
}

/** `listen`, with a taken port named by the service and the `svc up` flag that moves it. */
async function listenAs(app: Express, port: number, service: string, flag: string): Promise<Listening> {
  try {
    return await listen(app, { port })
  } catch (error) {
    if ((error as { cause?: NodeJS.ErrnoException }).cause?.code !== 'EADDRINUSE') throw error
    throw new SvcError(
      `the ${service} port ${port} on 127.0.0.1 is in use: stop what runs there, or pass ${flag} 0 for a free port`,
      { cause: error },
    )
  }
}

/** Starts the sandbox chain, its chain manager (faucet) and the development x402 facilitator. */
export async function startChainServices(options: StartChainServicesOptions = {}): Promise<ChainServices> {
  const {
    rpcPort = 0,
    chainManagerPort = 0,
    facilitatorPort = 0,
    defaultEthWei,
    defaultUsdcBase,
    log,
    clock = createClock(),
    twins: twinNames,
    twinForkUrl,
    twinAnvils = {},
    twinSpecs,
    twinPidFile,
    receiverAuthorizerKey,
    ...chainOptions
  } = options
  // Bad twin input is refused before anything starts: an unknown name, a fork URL of another chain.
  const specs = twinSpecs ?? (await resolveTwins(twinNames, twinForkUrl))
  // The twins start beside the Sandbox chain, not after it: a twin adds its own Anvil's start, not a second one.
  const startingTwins = specs.map((spec) =>
    startTwin(spec, {
      binary: chainOptions.binary,
      host: chainOptions.host,
      relay: chainOptions.relay,
      watchdog: chainOptions.watchdog,
      pidFile: twinPidFile?.(spec.name),
      log,
      defaultEthWei,
      defaultUsdcBase,
      forkUrl: twinForkUrl,
      anvil: twinAnvils[spec.name],
    }),
  )
  const twinsStarted = Promise.allSettled(startingTwins)
  const stopTwins = async () =>
    Promise.all((await twinsStarted).map((result) => (result.status === 'fulfilled' ? result.value.stop() : undefined)))
  let chain: SandboxChain
  try {
    chain = await startChain({ ...chainOptions, log, port: rpcPort })
  } catch (error) {
    await stopTwins()
    throw error
  }
  try {
    const twins = await Promise.all(startingTwins)
    const manager = createChainManager(chain, {
      defaultEthWei,
      defaultUsdcBase,
      log,
      managerOf: (network) => twinOfNetwork(twins, network).manager,
    })
    const faults = createFaultBook()
    const facilitator = createFacilitator(chain, {
      log,
      clock,
      faults,
      twins: twins.map((twin) => twin.chain),
      receiverAuthorizer: receiverAuthorizerKey && privateKeyToAccount(receiverAuthorizerKey),
    })
    const listening = await Promise.allSettled([
      listenAs(manager.app, chainManagerPort, 'chain manager', '--chain-manager-port'),
      listenAs(facilitator.app, facilitatorPort, 'facilitator', '--facilitator-port'),
    ])
    const failed = listening.find((result) => result.status === 'rejected')
    if (failed) {
      await Promise.all(listening.map((result) => (result.status === 'fulfilled' ? result.value.close() : undefined)))
      throw failed.reason
    }
    const [managerServer, facilitatorServer] = listening.map(
      (result) => (result as PromiseFulfilledResult<Listening>).value,
    ) as [Listening, Listening]
    return {
      sandboxChain: chain,
      manager,
      facilitator,
      faults,
      twins,
      rpcUrl: chain.rpcUrl,
      chainManagerUrl: managerServer.url,
      facilitatorUrl: facilitatorServer.url,
      clock,
      async stop() {
        await Promise.all([managerServer.close(), facilitatorServer.close()])
        await Promise.all([chain.stop(), ...twins.map((twin) => twin.stop())])
      },
    }
  } catch (error) {
    await Promise.all([chain.stop(), stopTwins()])
    throw error
  }
}
