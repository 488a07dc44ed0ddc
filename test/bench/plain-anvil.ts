import type { StartChainOptions } from '../../chain/sandbox-chain.js'

/**
 * Anvil as it comes, for the reference stack: svc's own tuning of it undone (chain/anvil/anvil.ts): full state history,
 * Anvil's default hardfork, no transaction pruning, automine, no pool guard.
 */
export const plainAnvil = {
  extraArgs: { pruneHistory: undefined, hardfork: undefined, transactionBlockKeeper: undefined },
  mining: 'auto',
  poolGuard: false,
} as const satisfies StartChainOptions
