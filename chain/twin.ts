import { BadRequestError } from '../core/errors.js'
import type { TwinSpec } from '../core/twins.js'
import { createChainManager, type ChainManager, type ChainManagerOptions } from './manager.js'
import type { SandboxChain, StartChainOptions } from './sandbox-chain.js'
import { startChain } from './start-chain.js'
import type { AnvilProcess } from './anvil/index.js'

export type StartTwinOptions = Pick<StartChainOptions, 'binary' | 'host' | 'relay' | 'log' | 'watchdog' | 'pidFile'> &
  Pick<ChainManagerOptions, 'defaultEthWei' | 'defaultUsdcBase'> & {
    /** Fork the real testnet from this RPC URL (its chain id must be the twin's). @defaultValue offline */
    forkUrl?: string | undefined
    /** Its Anvil, already starting (`startAnvil` with the twin's chain id), booted while svc loads its modules. */
    anvil?: Promise<AnvilProcess> | undefined
  }

/** A twin running: its chain (a SandboxChain with the testnet's chain id) and its faucet. */
export type RunningTwin = {
  spec: TwinSpec
  chain: SandboxChain
  manager: ChainManager
  /** What the ready line, `/config/local-dev` and the dashboard show of it. */
  describe(): TwinInfo
  stop(): Promise<void>
}

export type TwinInfo = {
  name: string
  network: string
  v1_network: string
  chain_id: number
  rpc_url: string
  mode: 'offline' | 'fork'
  usdc: string
}

/**
 * Starts a twin of a testnet: Anvil with the testnet's chain id, a USDC (svc's EIP-3009/EIP-2612 token) at the
 * testnet's USDC address under its EIP-712 name, Permit2 and x402's proxies, Multicall3, and a faucet. No state file:
 * a twin starts empty each run (or from its fork URL).
 */
export async function startTwin(spec: TwinSpec, options: StartTwinOptions = {}): Promise<RunningTwin> {
  const { defaultEthWei, defaultUsdcBase, forkUrl, ...chainOptions } = options
  const chain = await startChain({ ...chainOptions, forkUrl, twin: spec })
  const manager = createChainManager(chain, { defaultEthWei, defaultUsdcBase, log: options.log })
  return {
    spec,
    chain,
    manager,
    describe: () => ({
      name: spec.name,
      network: spec.network,
      v1_network: spec.v1Network,
      chain_id: spec.chainId,
      rpc_url: chain.rpcUrl,
      mode: chain.mode,
      usdc: chain.usdc.address,
    }),
    stop: () => chain.stop(),
  }
}

/** The twin a faucet call names (`network`: CAIP-2, v1 name or svc's name), or a 400 naming those running. */
export function twinOfNetwork(twins: readonly RunningTwin[], network: string): RunningTwin {
  const twin = twins.find(({ spec }) => spec.network === network || spec.v1Network === network || spec.name === network)
  if (!twin) {
    const running = twins.map(({ spec }) => spec.network)
    throw new BadRequestError(
      running.length === 0
        ? `network "${network}": no twin runs (start one with svc up --twin base-sepolia)`
        : `network "${network}": the twins running are ${running.join(', ')}`,
    )
  }
  return twin
}
