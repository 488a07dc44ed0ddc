import type { ChainServices } from '../../chain/services.js'
import type { TwinInfo } from '../../chain/twin.js'
import { clusterChainPath, clusterHeader } from './cluster-secret.js'

/**
 * What a team Sandbox's chain is, as its owner tells the other processes (`/_svc/cluster/chain`): what `/config/local-dev`,
 * the browser's paywall page and the Sandbox's payment token need of it, of one epoch (a new chain may differ).
 */
export type ChainFacts = {
  epoch: string
  chain_id: number
  network: string
  usdc: { address: string; decimals: number; name: string; version: string }
  /** Its twins (their RPCs on the owner's loopback: `/config/local-dev` does not name those). */
  twins: TwinInfo[]
}

/** The facts of this process's chain (the owner's side). */
export function chainFactsOf(chain: ChainServices): ChainFacts {
  const { sandboxChain: sandbox } = chain
  const { address, decimals, name, version } = sandbox.usdc
  return {
    epoch: sandbox.epoch,
    chain_id: sandbox.chainId,
    network: sandbox.network,
    usdc: { address, decimals, name, version },
    twins: chain.twins.map((twin) => twin.describe()),
  }
}

/** Reads the owner's chain facts at `ownerUrl` (its advertise URL) with the cluster secret. */
export async function readChainFacts(ownerUrl: string, secret: string): Promise<ChainFacts> {
  const answer = await fetch(`${ownerUrl}${clusterChainPath}`, {
    headers: { [clusterHeader]: secret },
    signal: AbortSignal.timeout(5_000),
  })
  if (!answer.ok) throw new Error(`the chain owner answered ${answer.status}`)
  return (await answer.json()) as ChainFacts
}
