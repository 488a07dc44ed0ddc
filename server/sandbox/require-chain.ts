import type { ChainServices } from '../../chain/services.js'
import {
  sandboxChainMoving,
  sandboxChainNotRunning,
  sandboxChainRestarting,
  ServiceUnavailableError,
} from '../../core/errors.js'
import type { ChainOwnerView } from '../cluster/chain-owner-view.js'
import { movingRetryAfterSeconds } from '../cluster/cluster-secret.js'

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
