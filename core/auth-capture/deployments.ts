/**
 * The commerce-payments contract sets (base/commerce-payments) an auth-capture payment collects into. Two sets are
 * "v1.1" to svc: the one the x402 spec names (scheme_auth_capture_evm.md @3659f12, "Commerce-payments deployments")
 * and the one the installed `@x402/evm` signs for (read from its `resolveAuthCaptureDeployment()`, never written twice
 * here): the official client of 2.27.0 pays the second, and throws on the first. svc's 402s name the package's escrow;
 * an omitted `extra.authCaptureEscrow` may have been signed for either, so the wire nonce decides (reopen.ts). The
 * v1.0 set (`feeBps` ABI) and any other escrow are refused with `invalid_auth_capture_evm_extra`.
 */
import { AUTH_CAPTURE_ESCROW_V1_0_ADDRESS, resolveAuthCaptureDeployment } from '@x402/evm'
import { type Address, getAddress, isAddress, isAddressEqual } from 'viem'

/** One set of the escrow and its three collectors. */
export type AuthCaptureDeployment = {
  version: 'v1.1'
  /** Where svc read it: the installed `@x402/evm` (what svc's 402s name), or the spec's table. */
  source: 'package' | 'spec'
  escrow: Address
  eip3009Collector: Address
  permit2Collector: Address
  operatorRefundCollector: Address
}

const fromPackage = resolveAuthCaptureDeployment()
if (fromPackage?.version !== 'v1.1') throw new Error('@x402/evm does not resolve a v1.1 auth-capture deployment')

/** The installed `@x402/evm`'s v1.1 set: what its client signs for, and what svc's 402s write as `authCaptureEscrow`. */
export const packageDeployment: AuthCaptureDeployment = {
  version: 'v1.1',
  source: 'package',
  escrow: getAddress(fromPackage.escrow),
  eip3009Collector: getAddress(fromPackage.eip3009Collector),
  permit2Collector: getAddress(fromPackage.permit2Collector),
  operatorRefundCollector: getAddress(fromPackage.operatorRefundCollector),
}

/** The spec's v1.1 set (x402-foundation/x402 @3659f12, specs/schemes/auth-capture/scheme_auth_capture_evm.md). */
export const specDeployment: AuthCaptureDeployment = {
  version: 'v1.1',
  source: 'spec',
  escrow: '0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB',
  eip3009Collector: '0xEA902B37036bcb4944577ec2101ABdEDF56EbD28',
  permit2Collector: '0x1aacb38b16a1a8709e80746825E53A0C9Cae9b70',
  operatorRefundCollector: '0x6a1ADdEEb4bD9c5811a613e20c172b6CE61A4aaB',
}

/**
 * Every set svc serves, the package's first (a newer `@x402/evm` that adopts the spec's set makes them one). Whichever
 * of them have code on a chain is the contracts' business (chain/contracts): nothing here depends on it.
 */
export const servedDeployments: readonly AuthCaptureDeployment[] = isAddressEqual(
  packageDeployment.escrow,
  specDeployment.escrow,
)
  ? [packageDeployment]
  : [packageDeployment, specDeployment]

/** The escrow svc's 402s name (`extra.authCaptureEscrow`). */
export const offeredEscrow: Address = packageDeployment.escrow

/** The v1.0 escrow (feeBps ABI), which svc does not serve: named so its refusal can say so. */
export const v1_0Escrow: Address = getAddress(AUTH_CAPTURE_ESCROW_V1_0_ADDRESS)

/** The served set whose escrow is `escrow` (any case), or undefined (v1.0, unknown, not an address). */
export function deploymentOfEscrow(escrow: string): AuthCaptureDeployment | undefined {
  if (!isAddress(escrow, { strict: false })) return undefined
  return servedDeployments.find((deployment) => isAddressEqual(deployment.escrow, escrow as Address))
}

/**
 * The sets a payment may have been signed for, given `extra.authCaptureEscrow`: both served sets when it is omitted
 * (or empty), the one it names when served, none otherwise (the caller refuses: `invalid_auth_capture_evm_extra`).
 */
export function candidateDeployments(escrow: unknown): readonly AuthCaptureDeployment[] {
  if (escrow === undefined || escrow === '') return servedDeployments
  if (typeof escrow !== 'string') return []
  const deployment = deploymentOfEscrow(escrow)
  return deployment ? [deployment] : []
}
