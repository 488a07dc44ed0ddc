import { defineChain } from 'viem'
import { sandboxChainId } from '../core/sandbox-usdc.js'

/** viem chain definition of the sandbox chain at a given RPC URL. */
export function sandboxChain(rpcUrl: string) {
  return defineChain({
    id: sandboxChainId,
    name: 'svc sandbox',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
}
