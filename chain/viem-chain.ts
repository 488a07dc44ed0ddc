import { defineChain } from 'viem'
import { sandboxChainId } from '../core/sandbox-usdc.js'

/** viem chain definition of the sandbox chain (or a twin's, `as`) at a given RPC URL. */
export function sandboxChain(
  rpcUrl: string,
  as: { id: number; name: string } = { id: sandboxChainId, name: 'svc sandbox' },
) {
  return defineChain({
    id: as.id,
    name: as.name,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}
