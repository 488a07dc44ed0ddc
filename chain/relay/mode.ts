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
