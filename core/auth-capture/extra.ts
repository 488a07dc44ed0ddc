/**
 * `requirements.extra` of an auth-capture payment, judged and normalised as the facilitator's verification steps 4–6
 * ask (x402 scheme_auth_capture_evm.md @3659f12, "Verification"), plus svc's guards: absent `receiverAuthorizer` and
 * `policy` read as the zero address, `paymentFlow` defaults to `escrow` (`captureMode` to `sync` there),
 * `assetTransferMethod` to `eip3009`. The answer names the reason a facilitator answers and what exactly was wrong.
 */
import { type Address, getAddress, isAddress, isAddressEqual, zeroAddress } from 'viem'
import { type AuthCaptureDeployment, candidateDeployments, v1_0Escrow } from './deployments.js'
import {
  type AuthCaptureExtra,
  authCaptureCaptureModes,
  authCapturePaymentFlows,
  authCaptureTransferMethods,
  type Judged,
} from './types.js'

/** The reasons' common prefix. */
export const reasonPrefix = 'invalid_auth_capture_evm_'
/** A refusal with the binding's reason (`invalid_auth_capture_evm_<reason>`). */
export const refuse = (reason: string, message: string) => ({
  ok: false as const,
  reason: `${reasonPrefix}${reason}`,
  message,
})

/** uint48, as the escrow's expiries are. */
const maxUint48 = 2 ** 48 - 1
const isUint = (value: unknown, max: number): value is number =>
  typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max
const isAddressText = (value: unknown): value is string =>
  typeof value === 'string' && isAddress(value, { strict: false })

/** The highest fee bound, in basis points (100%). */
export const maxFeeBps = 10_000

export type NormalizedExtra = { extra: AuthCaptureExtra; deployments: readonly AuthCaptureDeployment[] }

/**
 * Judges `requirements.extra` of an auth-capture payment: every required field present and typed, the escrow one of
 * the served v1.1 sets (or omitted: `deployments` then lists both), the flow, the fee system, the operator type
 * (`delegated` only), a zero policy, the capture mode and the transfer method. The refusal's reason is the spec's:
 * `unsupported_payment_flow`, `extra`, `unsupported_operator_type`, `policy` or `unsupported_asset_transfer_method`.
 */
export function normalizeExtra(raw: unknown): Judged<NormalizedExtra> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return refuse('extra', 'extra is not an object')
  const extra = raw as Record<string, unknown>
  if (extra.autoCapture === true)
    return refuse('unsupported_payment_flow', 'extra.autoCapture is removed in scheme v1.1: use paymentFlow')
  const flow = extra.paymentFlow ?? 'escrow'
  if (!(authCapturePaymentFlows as readonly unknown[]).includes(flow))
    return refuse('unsupported_payment_flow', `extra.paymentFlow must be "escrow" or "authorization"`)
  for (const field of ['name', 'version'] as const)
    if (typeof extra[field] !== 'string' || extra[field] === '')
      return refuse('extra', `extra.${field} (the token's EIP-712 domain) is required`)
  for (const field of ['captureAuthorizer', 'feeRecipient'] as const)
    if (!isAddressText(extra[field])) return refuse('extra', `extra.${field} must be an address`)
  for (const field of ['captureDeadline', 'refundDeadline'] as const)
    if (!isUint(extra[field], maxUint48)) return refuse('extra', `extra.${field} must be unix seconds (uint48)`)
  for (const field of ['minFeeBps', 'maxFeeBps'] as const)
    if (!isUint(extra[field], maxFeeBps)) return refuse('extra', `extra.${field} must be an integer from 0 to 10000`)
  for (const field of ['receiverAuthorizer', 'policy', 'authCaptureEscrow'] as const)
    if (
      extra[field] !== undefined &&
      !isAddressText(extra[field]) &&
      !(field === 'authCaptureEscrow' && extra[field] === '')
    )
      return refuse('extra', `extra.${field} must be an address`)
  const deployments = candidateDeployments(extra.authCaptureEscrow)
  if (deployments.length === 0)
    return refuse(
      'extra',
      isAddressEqual(extra.authCaptureEscrow as Address, v1_0Escrow)
        ? 'extra.authCaptureEscrow is the v1.0 escrow, which this facilitator does not serve: use the v1.1 escrow'
        : 'extra.authCaptureEscrow is not a v1.1 AuthCaptureEscrow this facilitator serves',
    )
  const min = extra.minFeeBps as number
  const max = extra.maxFeeBps as number
  const feeRecipient = getAddress(extra.feeRecipient as string)
  if (min > max) return refuse('extra', 'extra.minFeeBps must not be above extra.maxFeeBps')
  if (isAddressEqual(feeRecipient, zeroAddress) && max > 0)
    return refuse(
      'extra',
      'a zero extra.feeRecipient needs minFeeBps = maxFeeBps = 0 (any recipient could take the fee)',
    )
  const receiverAuthorizer = isAddressText(extra.receiverAuthorizer)
    ? getAddress(extra.receiverAuthorizer)
    : zeroAddress
  const policy = isAddressText(extra.policy) ? getAddress(extra.policy) : zeroAddress
  let captureMode: AuthCaptureExtra['captureMode']
  if (flow === 'authorization') {
    if (extra.captureMode !== undefined)
      return refuse('extra', 'extra.captureMode is for the escrow flow: leave it out with paymentFlow "authorization"')
  } else {
    const mode = extra.captureMode ?? 'sync'
    if (!(authCaptureCaptureModes as readonly unknown[]).includes(mode))
      return refuse('extra', 'extra.captureMode must be "sync" or "deferred"')
    if (mode === 'sync' && isAddressEqual(receiverAuthorizer, zeroAddress))
      return refuse(
        'extra',
        'extra.captureMode "sync" needs a receiverAuthorizer (without one no capture or void is relayed, and the hold would sit until the payer reclaims it): write "deferred"',
      )
    captureMode = mode as AuthCaptureExtra['captureMode']
  }
  if (extra.operatorType !== undefined && extra.operatorType !== 'delegated')
    return refuse(
      'unsupported_operator_type',
      `extra.operatorType ${JSON.stringify(extra.operatorType)} is not implemented: svc's facilitator relays "delegated" only`,
    )
  if (!isAddressEqual(policy, zeroAddress))
    return refuse('policy', 'extra.policy must be absent or the zero address for operatorType "delegated"')
  const method = extra.assetTransferMethod ?? 'eip3009'
  if (!(authCaptureTransferMethods as readonly unknown[]).includes(method))
    return refuse('unsupported_asset_transfer_method', 'extra.assetTransferMethod must be "eip3009" or "permit2"')
  return {
    ok: true,
    deployments,
    extra: {
      name: extra.name as string,
      version: extra.version as string,
      authCaptureEscrow: isAddressText(extra.authCaptureEscrow) ? getAddress(extra.authCaptureEscrow) : undefined,
      captureAuthorizer: getAddress(extra.captureAuthorizer as string),
      receiverAuthorizer,
      policy,
      operatorType: 'delegated',
      paymentFlow: flow as AuthCaptureExtra['paymentFlow'],
      captureMode,
      captureDeadline: extra.captureDeadline as number,
      refundDeadline: extra.refundDeadline as number,
      minFeeBps: min,
      maxFeeBps: max,
      feeRecipient,
      assetTransferMethod: method as AuthCaptureExtra['assetTransferMethod'],
    },
  }
}

/** The fee bounds of a `charge` or `capture` of `amount` (v1.1: `amount·min/1e4 ≤ feeAmount ≤ amount·max/1e4`). */
export const feeBounds = (amount: bigint, extra: Pick<AuthCaptureExtra, 'minFeeBps' | 'maxFeeBps'>) => ({
  min: (amount * BigInt(extra.minFeeBps)) / 10_000n,
  max: (amount * BigInt(extra.maxFeeBps)) / 10_000n,
})
