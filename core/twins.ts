import type { Address } from 'viem'
import { UsageError } from './errors.js'

/**
 * A twin: a local chain beside the Sandbox chain with a public testnet's chain id and USDC, so code written for that
 * testnet (its network names, its USDC, its prices in dollars) pays on svc unchanged but for the facilitator URL.
 */
export type TwinSpec = {
  /** The name `svc up --twin` takes. */
  readonly name: string
  readonly chainId: number
  /** CAIP-2, as x402 v2 names it. */
  readonly network: `eip155:${number}`
  /** The name x402 v1 gives it. */
  readonly v1Network: string
  /** The testnet's USDC: its address and EIP-712 domain (as `@x402/evm`'s DEFAULT_ASSETS has them). */
  readonly usdc: { readonly address: Address; readonly name: string; readonly version: string }
  /**
   * Only testnets: an authorization signed for a chain id is valid on that chain, so a twin of a mainnet would make
   * svc a place where real-money authorizations are signed and could be replayed on the real chain.
   */
  readonly testnet: true
}

/** The twins svc knows. */
export const twinSpecs = {
  'base-sepolia': {
    name: 'base-sepolia',
    chainId: 84_532,
    network: 'eip155:84532',
    v1Network: 'base-sepolia',
    usdc: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', name: 'USDC', version: '2' },
    testnet: true,
  },
} as const satisfies Record<string, TwinSpec>

export type TwinName = keyof typeof twinSpecs

export const twinNames = Object.keys(twinSpecs) as TwinName[]

/** The twin of that name (svc's name, its CAIP-2 network or its x402 v1 name), or a UsageError naming those svc knows. */
export function twinSpec(name: string): TwinSpec {
  const spec = (Object.values(twinSpecs) as TwinSpec[]).find(
    (twin) => twin.name === name || twin.network === name || twin.v1Network === name,
  )
  if (!spec) throw new UsageError(`unknown twin "${name}": svc has twins of ${twinNames.join(', ')}`)
  // A guard for whoever adds to the table: a mainnet twin is refused (see TwinSpec.testnet).
  if (spec.testnet !== true) throw new UsageError(`the twin "${name}" is not of a testnet: svc only twins testnets`)
  return spec
}

/** The twins asked for, each once, in order; an unknown name throws before anything starts. */
export function twinSpecList(names: readonly string[] | undefined): TwinSpec[] {
  const specs = (names ?? []).map(twinSpec)
  return specs.filter((spec, index) => specs.findIndex((other) => other.name === spec.name) === index)
}
