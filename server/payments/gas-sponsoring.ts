import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentRequirements } from '@x402/core/types'
import {
  EIP2612_GAS_SPONSORING,
  ERC20_APPROVAL_GAS_SPONSORING,
  declareEip2612GasSponsoringExtension,
  declareErc20ApprovalGasSponsoringExtension,
} from '@x402/extensions'

/** The gas sponsoring extensions a Permit2 accept may name in `extra.gasSponsoring` (one only) or leave to the facilitator. */
export const gasSponsoringKeys = [EIP2612_GAS_SPONSORING.key, ERC20_APPROVAL_GAS_SPONSORING.key] as const
export type GasSponsoringKey = (typeof gasSponsoringKeys)[number]

/**
 * The gas sponsoring extensions of a 402: for each option that pays through Permit2, those its facilitator supports
 * (`eip2612GasSponsoring`: the buyer signs an EIP-2612 permit; `erc20ApprovalGasSponsoring`: the buyer signs an
 * `approve(Permit2, …)` transaction the facilitator funds and sends), narrowed to the one its `extra.gasSponsoring`
 * names. A buyer whose Permit2 allowance is short then needs no approval transaction (nor gas) of its own.
 * x402's client prefers the permit where both are declared and the option names the token's EIP-712 domain.
 */
export function gasSponsoring(
  server: x402ResourceServer,
  requirements: PaymentRequirements[],
): Record<string, unknown> {
  const declared = new Set<GasSponsoringKey>()
  for (const option of requirements) {
    if (option.extra?.assetTransferMethod !== 'permit2') continue
    const supported = server.getFacilitatorExtensions(2, option.network, option.scheme)
    const named = option.extra?.gasSponsoring
    for (const key of gasSponsoringKeys) if (supported.includes(key) && (named ?? key) === key) declared.add(key)
  }
  return {
    ...(declared.has(EIP2612_GAS_SPONSORING.key) ? declareEip2612GasSponsoringExtension() : {}),
    ...(declared.has(ERC20_APPROVAL_GAS_SPONSORING.key) ? declareErc20ApprovalGasSponsoringExtension() : {}),
  }
}
