import type { ChainServices } from '../../chain/services.js'
import { sandboxChainNotRunning, sandboxChainRestarting, ServiceUnavailableError } from '../../core/errors.js'

export type RequireSandboxChainOptions = {
  /**
   * Answer while the chain restarts too: for what lives on svc's side of it (the fault book, the wallets' keys, the
   * restart itself, which concurrent calls share). @defaultValue false
   */
  whileRestarting?: boolean | undefined
}

/**
 * The Sandbox chain's services, for whatever needs them: a 503 ({@link sandboxChainNotRunning}) when svc runs without
 * a chain, and ({@link sandboxChainRestarting}) while the chain restarts, unless `whileRestarting`.
 */
export function requireSandboxChain(
  deps: { chain?: ChainServices | undefined },
  options: RequireSandboxChainOptions = {},
): ChainServices {
  const { chain } = deps
  if (!chain) throw new ServiceUnavailableError(sandboxChainNotRunning)
  if (chain.sandboxChain.restarting && !options.whileRestarting)
    throw new ServiceUnavailableError(sandboxChainRestarting)
  return chain
}
