import { parseUnits } from 'viem'
import { z } from 'zod'
import { usdcDecimals } from '../core/sandbox-usdc.js'
import type { Accept } from '../sdk/types.js'
import { pricingFields } from './schemas.js'
import type { McpContext } from './tool.js'

export type Pricing = z.output<z.ZodObject<typeof pricingFields>>

/** "0.01" USDC → "10000" atomic units. */
export function usdcToAtomic(price: string): string {
  return parseUnits(price, usdcDecimals).toString()
}

/**
 * The one accept option of a price. `network` and `asset` default to the Sandbox network and USDC of
 * GET /config/local-dev when the key is a Sandbox key; a live key must give them.
 */
export async function acceptsFor(ctx: McpContext, pricing: Pricing): Promise<Accept[]> {
  const { price, amount, max_timeout_seconds } = pricing
  if (price !== undefined && amount !== undefined) throw new Error('give price (decimal USDC) or amount (atomic units), not both')
  if (price === undefined && amount === undefined) throw new Error('a price is needed: price in USDC (e.g. "0.01") or amount in atomic units (e.g. "10000")')
  const atomic = amount ?? usdcToAtomic(price!)
  if (BigInt(atomic) === 0n) throw new Error('the price must be more than 0')
  let { network, asset } = pricing
  if (network === undefined || asset === undefined) {
    if ((await ctx.environment()) !== 'development')
      throw new Error('network and asset are required with a live (svc_live_) key; with a Sandbox key they default to the Sandbox USDC')
    const { usdc } = await ctx.client.config.localDev()
    network ??= usdc.network
    asset ??= usdc.address
  }
  return [{ scheme: 'exact', network, asset, amount: atomic, ...(max_timeout_seconds === undefined ? {} : { max_timeout_seconds }) }]
}
