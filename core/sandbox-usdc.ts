import { formatUnits, parseUnits, type Address } from 'viem'

/** The sandbox chain's id: every development payment settles here. */
export const sandboxChainId = 845_320_402

/** CAIP-2 id of the sandbox chain, as x402 names it. */
export const sandboxNetwork = `eip155:${sandboxChainId}` as const

/** Mainnet (Base) USDC address: the sandbox token lives at the same address, so configs look like production. */
export const usdcAddress: Address = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'

/** EIP-712 domain of the offline sandbox USDC (the `extra` of every sandbox accept). */
export const sandboxUsdcDomain = { name: 'USDC', version: '2' } as const

/** USDC's decimals, here and on every chain x402 pays on. */
export const usdcDecimals = 6

/** "0.01" USDC → 10000n atomic units (viem's parseUnits with USDC's decimals). */
export const parseUsdc = (amount: string): bigint => parseUnits(amount, usdcDecimals)

/** 10000n atomic units → "0.01". */
export const formatUsdc = (atomic: bigint | string): string => formatUnits(BigInt(atomic), usdcDecimals)
