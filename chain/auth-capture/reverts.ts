/**
 * A reverted escrow call (a simulation, or a mined transaction the relay explained by its revert) named by the
 * binding's reason (x402 scheme_auth_capture_evm.md, "Typed simulation reverts"): the escrow's custom errors, the
 * collectors', Permit2's and the token's revert strings where one says what was wrong; anything else is
 * `…_simulation_failed` with the revert in the message.
 */
import { type Abi, BaseError, decodeErrorResult, type Hex, isHex, parseAbi } from 'viem'
import { reasonPrefix } from '../../core/auth-capture/extra.js'
import type { Refusal } from '../../core/auth-capture/types.js'
import { cutText, errorMessageLimit } from '../../core/http.js'
import { authCaptureEscrowAbi } from '../contracts/index.js'

/** The escrow's custom errors, by name, and the reason each one is. */
const escrowErrors: Record<string, string> = {
  InvalidSender: 'operator_mismatch',
  ZeroAmount: 'amount_mismatch',
  AmountOverflow: 'amount_overflow',
  ExceedsMaxAmount: 'amount_mismatch',
  AfterPreApprovalExpiry: 'authorization_expired',
  InvalidExpiries: 'deadline_ordering',
  FeeBpsOverflow: 'fee_bps',
  InvalidFeeBpsRange: 'fee_bps_range',
  FeeAmountOutOfRange: 'fee_bps_out_of_range',
  ZeroFeeReceiver: 'zero_fee_receiver',
  InvalidFeeReceiver: 'fee_receiver',
  InvalidCollectorForOperation: 'collector',
  TokenCollectionFailed: 'token_collection_failed',
  SafeERC20FailedOperation: 'token_collection_failed',
  PaymentAlreadyCollected: 'payment_already_collected',
  AfterAuthorizationExpiry: 'capture_deadline_expired',
  InsufficientAuthorization: 'insufficient_authorization',
  ZeroAuthorization: 'zero_authorization',
  AfterRefundExpiry: 'refund_deadline_expired',
  RefundExceedsCapture: 'refund_exceeds_capture',
  // Permit2's, reached through the Permit2 collector.
  SignatureExpired: 'authorization_expired',
  InvalidSignature: 'signature',
  InvalidSigner: 'signature',
  InvalidSignatureLength: 'signature',
  InvalidContractSignature: 'signature',
  InvalidNonce: 'payment_already_collected',
}

/** The token's revert strings (FiatToken's) that name the client's authorization. */
const tokenStrings: [RegExp, string][] = [
  [/invalid signature/i, 'signature'],
  [/authorization is expired|permit is expired/i, 'authorization_expired'],
  [/authorization is not yet valid/i, 'authorization_not_yet_valid'],
  [/authorization is used/i, 'payment_already_collected'],
  [/transfer amount exceeds balance/i, 'insufficient_balance'],
]

const otherErrors = parseAbi([
  'error SafeERC20FailedOperation(address token)',
  'error OnlyAuthCaptureEscrow()',
  'error SignatureExpired(uint256 signatureDeadline)',
  'error InvalidAmount(uint256 maxAmount)',
  'error InvalidNonce()',
  'error InvalidSignature()',
  'error InvalidSigner()',
  'error InvalidSignatureLength()',
  'error InvalidContractSignature()',
  'error TransferFromFailed()',
])

/** The revert data somewhere in viem's error chain, if any. */
function revertDataOf(error: unknown): Hex | undefined {
  let found: Hex | undefined
  if (error instanceof BaseError)
    error.walk((cause) => {
      const data = (cause as { data?: unknown }).data
      const raw = typeof data === 'object' && data !== null ? (data as { data?: unknown }).data : data
      if (found === undefined && typeof raw === 'string' && isHex(raw) && raw.length >= 10) found = raw as Hex
      return false
    })
  return found
}

/** The error's name (a custom error's, decoded) and its text. */
function describe(error: unknown): { name: string | undefined; text: string } {
  const text =
    error instanceof BaseError
      ? error.details || error.shortMessage
      : error instanceof Error
        ? error.message
        : String(error)
  let name: string | undefined
  if (error instanceof BaseError)
    error.walk((cause) => {
      const data = (cause as { data?: { errorName?: unknown } }).data
      if (name === undefined && typeof data?.errorName === 'string' && data.errorName !== 'Error') name = data.errorName
      return false
    })
  const raw = revertDataOf(error)
  if (name === undefined && raw)
    for (const abi of [authCaptureEscrowAbi, otherErrors] as const)
      try {
        const decoded = decodeErrorResult({ abi: abi as Abi, data: raw }) as {
          errorName: string
          args?: readonly unknown[]
        }
        if (decoded.errorName !== 'Error') name = decoded.errorName
        else return { name: undefined, text: String(decoded.args?.[0] ?? text) }
        break
      } catch {}
  return { name, text }
}

/** The reason a reverted escrow call (`error`, as viem threw it) is, and the revert in words. */
export function revertRefusal(error: unknown, fallback = 'simulation_failed'): Refusal {
  const { name, text } = describe(error)
  const message = cutText(name ? `the escrow call reverted with ${name}: ${text}` : text, errorMessageLimit)
  const known = name ? escrowErrors[name] : tokenStrings.find(([pattern]) => pattern.test(text))?.[1]
  return { reason: `${reasonPrefix}${known ?? fallback}`, message }
}
