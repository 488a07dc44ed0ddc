import type { ChainServices } from '../../chain/services.js'
import type { Clock } from '../../core/clock.js'

/**
 * Mines an empty block at svc's time when the chain's latest block is behind it (after a revert, or a restart that
 * reloaded a chain moved ahead), or `atLeastSeconds` past the latest block: the chain and svc then agree. Every chain
 * svc runs moves: the Sandbox chain and its twins (`svc up --twin`).
 */
export async function alignChainTime(chain: ChainServices, clock: Clock, atLeastSeconds = 0): Promise<void> {
  await Promise.all(
    [chain.sandboxChain, ...(chain.twins ?? []).map((twin) => twin.chain)].map(async (on) => {
      const latest = await on.client.getBlock({ blockTag: 'latest' })
      const target = Math.max(clock.nowSeconds(), Number(latest.timestamp) + atLeastSeconds)
      if (target <= Number(latest.timestamp)) return
      await on.testClient.setNextBlockTimestamp({ timestamp: BigInt(target) })
      await on.testClient.mine({ blocks: 1 })
    }),
  )
}
