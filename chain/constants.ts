import type { Address } from 'viem'

/** Canonical Multicall3 address; the x402 facilitator uses it to explain failed payments. */
export const multicall3Address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * Anvil's well-known development mnemonic. Account 0 owns and mints the sandbox USDC (chain manager),
 * account 1 relays settlements (facilitator), with accounts 10 to 24 beside it ({@link relayerPoolKeys});
 * accounts 2 to 9 are free for tests and demos.
 */
export const sandboxMnemonic = 'test test test test test test test test test test test junk'

export const accountIndex = { minter: 0, relayer: 1 } as const

/** Dev accounts Anvil creates: the ten it lists by default and the relayer pool's fifteen after them. */
export const devAccountCount = 25

/**
 * The private keys of those two accounts, as the mnemonic derives them (m/44'/60'/0'/0/0 and /1). Kept here because
 * deriving them costs ~70 ms each at start-up (PBKDF2 in JavaScript); a test checks they match the mnemonic.
 */
export const devAccountKeys = {
  minter: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  relayer: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const

/**
 * The relayer pool beside account 1: accounts 10 to 24 of the mnemonic (keys kept for the reason above; a test checks
 * them). Settlements are spread over the pool, one transaction in flight per account, because Anvil can leave a
 * transaction unmined when the one before it from the same sender is being mined (foundry-rs/foundry#10122), with its
 * automine and with svc's batch miner alike (chain/relay/relayer.ts has the figures).
 */
export const relayerPoolKeys = [
  '0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897',
  '0x701b615bbdfb9de65240bc28bd21bbc0d996645a3dd57e7b12bc2bdf6f192c82',
  '0xa267530f49f8280200edf313ee7af6b827f2a8bce2897751d06a843f644967b1',
  '0x47c99abed3324a2707c28affff1267e45918ec8c3f20b8aa892e8b065d2942dd',
  '0xc526ee95bf44d8fc405a158bb884d9d1238d99f0612e9f33d006bb0789009aaa',
  '0x8166f546bab6da521a8369cab06c5d2b9e46670292d85c875ee9ec20e84ffb61',
  '0xea6c44ac03bff858b476bba40716402b03e41b8e97e276d1baec7c37d42484a0',
  '0x689af8efa8c651a91ad287602527f3af2fe9f6501a7ac4b061667b5a93e037fd',
  '0xde9be858da4a475276426320d5e9262ecfc3ba460bfac56360bfa6c4c28b4ee0',
  '0xdf57089febbacf7ba0bc227dafbffa9fc08a93fdc68e1e42411a14efcf23656e',
  '0xeaa861a9a01391ed3d587d8a5a84ca56ee277629a8b02c22093a419bf240e65d',
  '0xc511b2aa70776d4ff1d376e8537903dae36896132c90b91d52c1dfbae267cd8b',
  '0x224b7eb7449992aac96d631d9677f7bf5888245eef6d6eeda31e62d2f29a83e4',
  '0x4624e0802698b9769f5bdb260a3777fbd4941ad2901f5966b854f953497eec1b',
  '0x375ad145df13ed97f8ca8e27bb21ebf2a3819e9e0a06509a812db377e533def7',
] as const

/** Where the pool's accounts sit in the mnemonic (m/44'/60'/0'/0/10 onwards). */
export const relayerPoolFirstIndex = 10
