import { startChain, type SandboxChain, type StartChainOptions } from './chain.js'
import { createChainManager, type ChainManager, type ChainManagerOptions } from './manager.js'
import { createFacilitator, type SandboxFacilitator } from './facilitator.js'
import { listen } from '../core/http.js'

export type StartChainServicesOptions = StartChainOptions &
  Pick<ChainManagerOptions, 'defaultEthWei' | 'defaultUsdcBase'> & {
    /** Port of the chain RPC (Anvil); 0 picks a free one. @defaultValue 0 */
    rpcPort?: number | undefined
    /** Port of the chain manager; 0 picks a free one. @defaultValue 0 */
    chainManagerPort?: number | undefined
    /** Port of the facilitator; 0 picks a free one. @defaultValue 0 */
    facilitatorPort?: number | undefined
    log?: ((message: string) => void) | undefined
  }

export type ChainServices = {
  chain: SandboxChain
  manager: ChainManager
  facilitator: SandboxFacilitator
  rpcUrl: string
  chainManagerUrl: string
  facilitatorUrl: string
  stop(): Promise<void>
}

/** Starts the sandbox chain, its chain manager (faucet) and the development x402 facilitator. */
export async function startChainServices(options: StartChainServicesOptions = {}): Promise<ChainServices> {
  const { rpcPort = 0, chainManagerPort = 0, facilitatorPort = 0, defaultEthWei, defaultUsdcBase, log, ...chainOptions } = options
  const chain = await startChain({ ...chainOptions, port: rpcPort })
  try {
    const manager = createChainManager(chain, { defaultEthWei, defaultUsdcBase, log })
    const facilitator = createFacilitator(chain, { log })
    const [managerServer, facilitatorServer] = await Promise.all([
      listen(manager.app, { port: chainManagerPort }),
      listen(facilitator.app, { port: facilitatorPort }),
    ])
    return {
      chain,
      manager,
      facilitator,
      rpcUrl: chain.rpcUrl,
      chainManagerUrl: managerServer.url,
      facilitatorUrl: facilitatorServer.url,
      async stop() {
        await Promise.all([managerServer.close(), facilitatorServer.close()])
        await chain.stop()
      },
    }
  } catch (error) {
    await chain.stop()
    throw error
  }
}
