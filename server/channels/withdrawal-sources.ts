import type { PublicClient } from 'viem'
import { blockAtOrBefore, type LogRange } from '../../chain/logs/index.js'
import type { ChannelsDeps } from './deps.js'

/** Blocks a production network's head is read behind (a short reorg may replace them); the Sandbox chain's: none. */
const productionConfirmations = 12n

/** A chain whose channels' withdrawals are watched: the Sandbox chain (its epoch), or a production network with an RPC. */
export type WithdrawalSource = {
  network: string
  chainEpoch: string
  client: PublicClient
  confirmations: bigint
  /**
   * A chain that can go back (the Sandbox chain: snapshots reverted, a chain reloaded from an older state): a head
   * below where svc read is a revert; a production RPC's is a node behind.
   */
  reverts: boolean
  /** Where to read from when nothing was read yet, and the widest log range: the RPC's limits. */
  range(nextBlock: bigint | undefined, oldestChannelAt: string): Promise<LogRange & { fromBlock: bigint }>
}

/**
 * The chains to read withdrawals from now: the Sandbox chain (unless it is restarting) and, when `withProduction`,
 * each production network (`--rpc`) svc keeps channels on. A network whose RPC cannot be reached is logged and left.
 */
export async function withdrawalSources(
  deps: ChannelsDeps,
  withProduction: boolean,
  log: (line: string) => void,
): Promise<WithdrawalSource[]> {
  const found: WithdrawalSource[] = []
  const chain = deps.chain?.sandboxChain
  if (chain && !chain.restarting)
    found.push({
      network: chain.network,
      chainEpoch: chain.epoch,
      client: chain.client,
      confirmations: 0n,
      reverts: true,
      async range(nextBlock, oldestChannelAt) {
        if (nextBlock !== undefined) return { fromBlock: nextBlock }
        // A block's time is never before the wall clock's (time travel only moves it on): an earlier block.
        const seconds = BigInt(Math.floor(Date.parse(oldestChannelAt) / 1000) - 60)
        return { fromBlock: await blockAtOrBefore(chain.client, seconds > 0n ? seconds : 0n) }
      },
    })
  const production = deps.productionChains
  if (!withProduction || !production || production.networks.length === 0) return found
  const networks = await deps.db
    .selectFrom('batch_channels')
    .select('network')
    .distinct()
    .where('chain_epoch', '=', '')
    .where('network', 'in', production.networks)
    .execute()
  for (const { network } of networks) {
    try {
      const client = await production.clientOf(network)
      if (client)
        found.push({
          network,
          chainEpoch: '',
          client,
          confirmations: productionConfirmations,
          reverts: false,
          range: async (nextBlock, oldestChannelAt) => {
            const range = await production.logRange(client, nextBlock?.toString() ?? null, oldestChannelAt)
            return { ...range, fromBlock: range.fromBlock ?? 0n }
          },
        })
    } catch (error) {
      log(`gateway: cannot read the channel withdrawals of ${network}: ${(error as Error).message}`)
    }
  }
  return found
}
