import type { PaymentRequirements } from '@x402/core/types'

/** `10000` base units of a 6-decimal token → `0.01`. */
export function formatUnits(amount: string, decimals: number): string {
  if (!/^\d+$/.test(amount)) return amount
  const padded = amount.padStart(decimals + 1, '0')
  const whole = padded.slice(0, padded.length - decimals)
  const fraction = padded.slice(padded.length - decimals).replace(/0+$/, '')
  return fraction ? `${whole}.${fraction}` : whole
}

/** The price as a person reads it: `0.01 USDC`, or `up to 0.05 USDC` for the upto scheme (the most it may charge). */
export function priceLabel(requirement: PaymentRequirements, decimals = 6): string {
  const amount = `${formatUnits(requirement.amount, decimals)} USDC`
  return requirement.scheme === 'upto' ? `up to ${amount}` : amount
}

/** How the page pays an accept: EIP-3009 or Permit2 (exact), or Permit2 up to a ceiling (upto). */
export function schemeLabel(requirement: PaymentRequirements): string {
  if (requirement.scheme === 'upto') return 'upto (Permit2)'
  return requirement.extra?.assetTransferMethod === 'permit2' ? 'exact (Permit2)' : 'exact (EIP-3009)'
}
