import type { PublicClient } from 'viem'
import type { ChainServices } from '../../chain/services.js'
import {
  sandboxChainMoving,
  sandboxChainNotRunning,
  sandboxChainRestarting,
  ServiceUnavailableError,
} from '../../core/errors.js'
import { type ChainOwnerView, movingRetryAfterSeconds } from '../cluster/index.js'

export type RequireSandboxChainOptions = {
  /**
   * Answer while the chain restarts too: for what lives on svc's side of it (the fault book, the wallets' keys, the
   * restart itself, which concurrent calls share). @defaultValue false
   */
  whileRestarting?: boolean | undefined
}

/**
 * The Sandbox chain's services, for whatever needs them: a 503 ({@link sandboxChainNotRunning}) when svc runs without
 * a chain, ({@link sandboxChainMoving}, with Retry-After) on a process of a team Sandbox that does not own it (its
 * chain routes are forwarded to the owner before they get here: server/cluster/cluster-routes.ts), and
 * ({@link sandboxChainRestarting}) while the chain restarts, unless `whileRestarting`.
 */
export function requireSandboxChain(
  deps: { chain?: ChainServices | undefined; chainOwner?: ChainOwnerView | undefined },
  options: RequireSandboxChainOptions = {},
): ChainServices {
  const { chain } = deps
  if (!chain && deps.chainOwner)
    throw new ServiceUnavailableError(sandboxChainMoving, { retryAfterSeconds: movingRetryAfterSeconds })
  if (!chain) throw new ServiceUnavailableError(sandboxChainNotRunning)
  if (chain.sandboxChain.restarting && !options.whileRestarting)
    throw new ServiceUnavailableError(sandboxChainRestarting)
  return chain
}

/**
 * The epoch of the Sandbox chain payments settle on now: this process's chain's, or the team Sandbox owner's; ''
 * without either (nothing settles then).
 */
export function sandboxEpochOf(deps: {
  chain?: ChainServices | undefined
  chainOwner?: ChainOwnerView | undefined
}): string {
  if (deps.chain) return deps.chain.sandboxChain.epoch
  const owner = deps.chainOwner?.current()
  return owner?.kind === 'remote' ? owner.epoch : ''
}

/**
 * The Sandbox chain's id and USDC: this process's chain's, or the team Sandbox owner's (read from it once per epoch:
 * server/cluster/chain-owner-view.ts); undefined without either, or while the chain moves.
 */
export function sandboxChainFacts(deps: {
  chain?: ChainServices | undefined
  chainOwner?: ChainOwnerView | undefined
}): { chainId: number; usdc: { address: string; decimals: number; name: string; version: string } } | undefined {
  const own = deps.chain?.sandboxChain
  if (own) return { chainId: own.chainId, usdc: own.usdc }
  const facts = deps.chainOwner?.facts()
  return facts && { chainId: facts.chain_id, usdc: facts.usdc }
}

/**
 * The Sandbox chain to read (receipts, blocks, contract wallets' signatures): this process's, or on a team Sandbox
 * process that does not own it, the owner's through its listener; undefined without either.
 */
export function sandboxChainReader(deps: {
  chain?: ChainServices | undefined
  chainOwner?: ChainOwnerView | undefined
}): { client: PublicClient; epoch: string } | undefined {
  return deps.chain?.sandboxChain ?? deps.chainOwner?.reader()
}
