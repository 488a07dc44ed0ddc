import type { z } from 'zod'
import { UsageError } from '../core/errors.js'
import { parseUsdc } from '../core/sandbox-usdc.js'
import { acceptsFor } from '../sdk/accepts.js'
import type { Accept } from '../sdk/types.js'
import type { pricingFields } from './schemas.js'
import type { McpContext } from './tool.js'

export type Pricing = z.output<z.ZodObject<typeof pricingFields>>

/**
 * The one accept option of a tool's price (the SDK's {@link acceptsFor}): `price` in USDC or `amount` in atomic
 * units; `network` and `asset` default to the Sandbox network and USDC when the key is a Sandbox key, a live key
 * must give them.
 */
export async function acceptsFromPricing(ctx: McpContext, pricing: Pricing): Promise<Accept[]> {
  const { price, amount, network, asset, max_timeout_seconds } = pricing
  if (price !== undefined && amount !== undefined) throw new UsageError('give price (decimal USDC) or amount (atomic units), not both')
  if (price === undefined && amount === undefined) throw new UsageError('a price is needed: price in USDC (e.g. "0.01") or amount in atomic units (e.g. "10000")')
  const atomic = amount ?? parseUsdc(price!).toString()
  if (BigInt(atomic) === 0n) throw new UsageError('the price must be more than 0')
  return acceptsFor({
    client: ctx.client,
    environment: ctx.environment,
    amount: atomic,
    network,
    asset,
    maxTimeoutSeconds: max_timeout_seconds,
    missingMessage: 'network and asset are required with a live (svc_live_) key; with a Sandbox key they default to the Sandbox USDC',
  })
}
