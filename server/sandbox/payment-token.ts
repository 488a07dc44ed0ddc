import { sandboxNetwork, sandboxUsdcDomain, usdcAddress, usdcDecimals } from '../../core/sandbox-usdc.js'
import type { SandboxDeps } from './deps.js'
import { sandboxChainFacts } from './require-chain.js'

/** The sandbox payment token as the control plane advertises it (also the `extra` of Sandbox accepts). */
export function sandboxUsdc(deps: SandboxDeps) {
  // A team Sandbox process that does not own the chain tells the owner's (they are the same token, kept in case not).
  const usdc = sandboxChainFacts(deps)?.usdc
  return {
    address: usdc?.address ?? usdcAddress,
    symbol: 'USDC',
    decimals: usdc?.decimals ?? usdcDecimals,
    network: sandboxNetwork,
    extra: {
      name: usdc?.name ?? sandboxUsdcDomain.name,
      version: usdc?.version ?? sandboxUsdcDomain.version,
      assetTransferMethod: 'eip3009',
    },
  }
}
