import { sandboxNetwork } from '../sandbox-usdc.js'

/**
 * Why an accept does not fit a development API (the Sandbox chain and its USDC only), or undefined; the seed file's
 * check applies it too (sdk/seed.ts).
 */
export function developmentAcceptProblem(
  accept: { network: string; asset: string },
  usdcAddress: string,
): { field: 'network' | 'asset'; message: string } | undefined {
  if (accept.network !== sandboxNetwork)
    return { field: 'network', message: `a development API takes only network "${sandboxNetwork}" (the Sandbox chain)` }
  if (accept.asset.toLowerCase() !== usdcAddress.toLowerCase())
    return { field: 'asset', message: `a development API takes only the Sandbox USDC ${usdcAddress}` }
  return undefined
}
