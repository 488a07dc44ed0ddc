import { formatUnits, parseUnits } from 'viem'
import { formatUsdc, usdcDecimals } from '../core/sandbox-usdc.js'
import type { Accept } from '../sdk/types.js'
import { UsageError } from '../core/errors.js'

/** A decimal amount of whole units ("0.01") in atomic units ("10000" with 6 decimals); refuses more decimals than the token has. */
export function parseDecimalAmount(value: string, flag: string, decimals = usdcDecimals): string {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(value.trim())
  if (!match) throw new UsageError(`${flag} must be a decimal amount like 0.01, got "${value}"`)
  const [, whole = '', fraction = ''] = match
  if (fraction.length > decimals) throw new UsageError(`${flag} has more than ${decimals} decimals: "${value}"`)
  const atomic = parseUnits(`${whole}.${fraction || '0'}`, decimals)
  if (atomic === 0n) throw new UsageError(`${flag} must be more than 0, got "${value}"`)
  return atomic.toString()
}

/** An amount in atomic units: a positive integer. */
export function parseAtomicAmount(value: string, flag: string): string {
  if (!/^[1-9][0-9]*$/.test(value.trim()))
    throw new UsageError(`${flag} must be a positive whole number of atomic units, got "${value}"`)
  return value.trim()
}

export type PriceOptions = { price?: string | undefined; amount?: string | undefined }

/** The atomic amount of `--price` (decimal USDC) or `--amount` (atomic units); one of them, not both. */
export function priceFrom(options: PriceOptions, required: true): string
export function priceFrom(options: PriceOptions, required: false): string | undefined
export function priceFrom({ price, amount }: PriceOptions, required: boolean): string | undefined {
  if (price !== undefined && amount !== undefined) throw new UsageError('give --price or --amount, not both')
  if (price !== undefined) return parseDecimalAmount(price, '--price')
  if (amount !== undefined) return parseAtomicAmount(amount, '--amount')
  if (required)
    throw new UsageError('a price is needed: --price USDC (e.g. 0.01) or --amount ATOMIC_UNITS (e.g. 10000)')
  return undefined
}

/** `0.01 USDC` for a USDC accept, `10000 units` otherwise; an upto accept's amount is a maximum: `up to 0.10 USDC`. */
export function describeAccept(accept: Pick<Accept, 'amount' | 'extra'> & { scheme?: string }): string {
  const name = accept.extra?.name
  const upTo = accept.scheme === 'upto' ? 'up to ' : ''
  if (name === 'USDC') return `${upTo}${formatUsdc(accept.amount)} USDC`
  return `${upTo}${accept.amount} units`
}

/** A hexadecimal or decimal quantity in whole units: `0x3b9aca00`, 6 decimals → `1000`. */
export function formatQuantity(quantity: string, decimals: number): string {
  return formatUnits(BigInt(quantity), decimals)
}
