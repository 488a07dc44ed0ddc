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

/**
 * Refuses a fork URL that is not of the twin's chain (asked with `eth_chainId`), before anything starts: a twin of
 * Base Sepolia forked from Base mainnet would sign for, and settle on, the wrong chain.
 */
async function assertTwinForkUrl(spec: TwinSpec, forkUrl: string): Promise<void> {
  let chainId: number
  try {
    const response = await fetch(forkUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(10_000),
    })
    const body = (await response.json()) as { result?: string }
    chainId = Number(BigInt(body.result ?? 'x'))
  } catch (error) {
    throw new UsageError(`the twin fork URL ${forkUrl} did not answer eth_chainId: ${(error as Error).message}`)
  }
  if (chainId !== spec.chainId)
    throw new UsageError(
      `the twin fork URL ${forkUrl} is of chain id ${chainId}, not ${spec.chainId} (${spec.name}): give an RPC URL of ${spec.name}`,
    )
}

/**
 * The twins asked for, checked as `svc up` needs them before anything starts: each name known, and a fork URL (for
 * exactly one twin) of that twin's chain.
 */
export async function resolveTwins(
  names: readonly string[] | undefined,
  forkUrl: string | undefined,
): Promise<TwinSpec[]> {
  const specs = twinSpecList(names)
  if (forkUrl !== undefined) {
    if (specs.length !== 1) throw new UsageError('--twin-fork-url needs exactly one --twin')
    await assertTwinForkUrl(specs[0]!, forkUrl)
  }
  return specs
}
