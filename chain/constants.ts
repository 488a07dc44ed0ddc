import type { Address } from 'viem'

/** Canonical Multicall3 address; the x402 facilitator uses it to explain failed payments. */
export const multicall3Address: Address = '0xcA11bde05977b3631167028862bE2a173976CA11'

/**
 * Anvil's well-known development mnemonic. Account 0 owns and mints the sandbox USDC (chain manager),
 * account 1 relays settlements (facilitator); the rest are free for tests and demos.
 */
export const sandboxMnemonic = 'test test test test test test test test test test test junk'

export const accountIndex = { minter: 0, relayer: 1 } as const

/**
 * The private keys of those two accounts, as the mnemonic derives them (m/44'/60'/0'/0/0 and /1). Kept here because
 * deriving them costs ~70 ms each at start-up (PBKDF2 in JavaScript); a test checks they match the mnemonic.
 */
export const devAccountKeys = {
  minter: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
  relayer: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
} as const
