import type { Chain, PrivateKeyAccount, PublicClient } from 'viem'
import type { MinedReceipts } from './miner.js'

/**
 * The settlement path. `tuned`: svc's relay (chain/relay/: the undici transport, a pool of unlocked relayers, the batch
 * miner under `--no-mining`, caches and a simulation started ahead). `viem`: the plain path to compare it with
 * (chain/relay/viem-signer.ts: viem's wallet client, `nonceManager` and `waitForTransactionReceipt`, viem's `http`
 * transport, Anvil's automine).
 */
export type Relay = 'tuned' | 'viem'

export const relays: readonly Relay[] = ['tuned', 'viem']

/** How Anvil mines for a relay, unless told otherwise: the tuned relay has its batch miner, the plain one automines. */
export const relayMining = (relay: Relay = 'tuned'): 'auto' | 'batched' => (relay === 'viem' ? 'auto' : 'batched')

/**
 * The gas limit of a contract call the scheme sends without one (its `transferWithAuthorization`, about 60–90k gas),
 * on both paths. Given, Anvil does not run the transfer once more to estimate it before it signs the transaction, and
 * the limit does not depend on the state at the estimate: the Sandbox USDC's used-authorization set costs a cold read
 * more when another authorization lands in one of the same buckets first, and viem's estimate (its exact figure, no
 * headroom) made before 11 other settlements in flight were mined then ran out of gas (a reverted settlement, its
 * payment answered 402 and not charged: relay-parity under load). Only the gas used is paid; the limit leaves room
 * for tokens and proxies costlier than svc's USDC (a fork's).
 */
export const contractCallGas = 500_000n

/**
 * What the relay's signers use of a chain (a structural slice of chain/sandbox-chain.ts's `SandboxChain`, declared here so
 * the relay stands below the chain it serves).
 */
export type RelayChain = {
  readonly rpcUrl: string
  readonly chainId: number
  readonly chain: Chain
  readonly client: PublicClient
  /** Changes whenever the chain goes away and again when it is back (chain/relay/tx-sender.ts). */
  readonly era: number
  /** `relayers`: the facilitator's pool, `relayer` first (chain/constants.ts). */
  readonly accounts: { readonly relayers: readonly PrivateKeyAccount[] }
  /** Mines what waits in Anvil's pool now (chain/relay/miner.ts). */
  mine(sent?: Promise<unknown>): Promise<MinedReceipts>
}
