import type { z } from 'zod'
import { UsageError } from '../core/errors.js'
import { parseUsdc } from '../core/sandbox-usdc.js'
import { acceptsFor } from '../sdk/accepts.js'
import type { Accept } from '../sdk/types.js'
import type { pricingFields } from './schemas.js'
import type { McpContext } from './tool.js'

export type Pricing = z.output<z.ZodObject<typeof pricingFields>>

/** Significant digits a double keeps for any decimal: up to 15 of them, the number reads back as written. */
const exactDigits = 15

/**
 * A price sent as a JSON number (as MCP clients and the MCP Inspector do), as the decimal text it was written as:
 * 0.01 → "0.01" (the shortest text that reads back as the same number). Refused, with a message saying why: a
 * negative number, more than 6 decimals (USDC has 6; 0.1 + 0.2 is 0.30000000000000004), or more significant digits
 * than a number keeps exactly (then the price must be a string).
 */
export function priceFromNumber(value: number): string {
  if (!Number.isFinite(value)) throw new UsageError(`price must be a number; got ${value}`)
  const text = String(value)
  if (value < 0) throw new UsageError(`price must not be negative; got ${text}`)
  const tooLarge = new UsageError(
    `price ${text} is too large to be exact as a number: give price as a string (a decimal like "1234567890.123456")`,
  )
  if (value >= 1e21) throw tooLarge
  // Below 1e-6 the text is exponential (1e-7): more than 6 decimals too.
  if (!/^\d+(\.\d{1,6})?$/.test(text))
    throw new UsageError(`price must be a USDC amount with at most 6 decimals, e.g. 0.01; got ${text}`)
  const digits = text.replace('.', '').replace(/^0+/, '').length
  if (value > Number.MAX_SAFE_INTEGER || (!Number.isInteger(value) && digits > exactDigits)) throw tooLarge
  return text
}

/**
 * The one accept option of a tool's price (the SDK's {@link acceptsFor}): `price` in USDC (a decimal string, or a
 * number: {@link priceFromNumber}) or `amount` in atomic units; `network` and `asset` default to the Sandbox network and USDC when the key is a Sandbox key, a live key
 * must give them.
 */
export async function acceptsFromPricing(ctx: McpContext, pricing: Pricing): Promise<Accept[]> {
  const { price, amount, network, asset, max_timeout_seconds } = pricing
  if (price !== undefined && amount !== undefined)
    throw new UsageError('give price (decimal USDC) or amount (atomic units), not both')
  if (price === undefined && amount === undefined)
    throw new UsageError('a price is needed: price in USDC (e.g. "0.01") or amount in atomic units (e.g. "10000")')
  const atomic = amount ?? parseUsdc(typeof price === 'number' ? priceFromNumber(price) : price!).toString()
  if (BigInt(atomic) === 0n) throw new UsageError('the price must be more than 0')
  return acceptsFor({
    client: ctx.client,
    environment: ctx.environment,
    amount: atomic,
    network,
    asset,
    maxTimeoutSeconds: max_timeout_seconds,
    missingMessage:
      'network and asset are required with a live (svc_live_) key; with a Sandbox key they default to the Sandbox USDC',
  })
}
