/**
 * An auth-capture payload read (x402 scheme_auth_capture_evm.md @3659f12, "Verification", step 1: the shape guard of
 * a client's collect or a server's lifecycle payload), and the salt's shape. Pure: no chain, no clock.
 */
import { type Address, type Hex, isAddress, isHex } from 'viem'
import { refuse } from './extra.js'
import { isBindOn, isWord } from './hashes.js'
import type {
  AuthCaptureExtra,
  Eip3009CollectPayload,
  Judged,
  LifecyclePayload,
  PaymentInfo,
  Permit2CollectPayload,
} from './types.js'
import { authCaptureLifecycleTypes } from './types.js'

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
const isAddressText = (value: unknown): value is Address =>
  typeof value === 'string' && isAddress(value, { strict: false })
const isUintText = (value: unknown): value is string =>
  typeof value === 'string' && /^(0|[1-9][0-9]{0,77})$/.test(value)
const isSignature = (value: unknown): value is Hex => typeof value === 'string' && isHex(value) && value.length > 2

/** What a payload is: a client's collect (EIP-3009 or Permit2) or a server's lifecycle operation. */
export type ReadPayload =
  | { kind: 'eip3009'; payload: Eip3009CollectPayload }
  | { kind: 'permit2'; payload: Permit2CollectPayload }
  | { kind: 'lifecycle'; payload: LifecyclePayload }

const chargeFields = ['amount', 'feeAmount', 'feeReceiver', 'authorizerSignature'] as const

/**
 * Step 1, the shape guard: an EIP-3009 or Permit2 collect (with `signature` and `salt`; the four charge fields all or
 * none, never v1.0's `feeBps`), or a lifecycle payload (`type` capture|void|refund with its fields). `saltNonce`
 * against the bind is {@link checkSaltShape}'s, once extra is known.
 */
export function readPayload(raw: unknown): Judged<ReadPayload> {
  if (!isObject(raw)) return refuse('payload_format', 'the payload is not an object')
  if (raw.type !== undefined) return readLifecycle(raw)
  if (raw.feeBps !== undefined) return refuse('payload_format', 'feeBps is the v1.0 fee field: v1.1 takes feeAmount')
  const present = chargeFields.filter((field) => raw[field] !== undefined)
  if (present.length > 0 && present.length < chargeFields.length)
    return refuse('payload_format', `a completed charge carries ${chargeFields.join(', ')} together`)
  if (present.length === chargeFields.length) {
    if (!isUintText(raw.amount) || !isUintText(raw.feeAmount))
      return refuse('payload_format', 'amount and feeAmount must be decimal strings of atomic units')
    if (!isAddressText(raw.feeReceiver)) return refuse('payload_format', 'feeReceiver must be an address')
    if (!isSignature(raw.authorizerSignature)) return refuse('payload_format', 'authorizerSignature must be hex')
  }
  if (!isSignature(raw.signature)) return refuse('payload_format', 'signature must be hex')
  if (!isWord(raw.salt)) return refuse('payload_format', 'salt must be 0x and 64 hex digits')
  if (raw.saltNonce !== undefined && !isWord(raw.saltNonce))
    return refuse('payload_format', 'saltNonce must be 0x and 64 hex digits')
  const a = raw.authorization
  const p = raw.permit2Authorization
  if (isObject(a) && p === undefined) {
    if (
      !isAddressText(a.from) ||
      !isAddressText(a.to) ||
      !isUintText(a.value) ||
      !isUintText(a.validAfter) ||
      !isUintText(a.validBefore) ||
      !isWord(a.nonce)
    )
      return refuse('payload_format', 'authorization must have from, to, value, validAfter, validBefore and nonce')
    return { ok: true, kind: 'eip3009', payload: raw as unknown as Eip3009CollectPayload }
  }
  if (isObject(p) && a === undefined) {
    const permitted = p.permitted
    if (
      !isAddressText(p.from) ||
      !isObject(permitted) ||
      !isAddressText(permitted.token) ||
      !isUintText(permitted.amount) ||
      !isAddressText(p.spender) ||
      !isUintText(p.nonce) ||
      !isUintText(p.deadline)
    )
      return refuse(
        'payload_format',
        'permit2Authorization must have from, permitted {token, amount}, spender, nonce and deadline',
      )
    return { ok: true, kind: 'permit2', payload: raw as unknown as Permit2CollectPayload }
  }
  return refuse('payload_format', 'the payload is neither the EIP-3009 nor the Permit2 shape')
}

function readPaymentInfo(raw: unknown): PaymentInfo | undefined {
  if (!isObject(raw)) return undefined
  const addresses = ['operator', 'payer', 'receiver', 'token', 'feeReceiver'] as const
  const numbers = ['preApprovalExpiry', 'authorizationExpiry', 'refundExpiry', 'minFeeBps', 'maxFeeBps'] as const
  if (!addresses.every((field) => isAddressText(raw[field]))) return undefined
  if (!numbers.every((field) => Number.isSafeInteger(raw[field]) && (raw[field] as number) >= 0)) return undefined
  if (!isUintText(raw.maxAmount) || !isWord(raw.salt)) return undefined
  return raw as unknown as PaymentInfo
}

function readLifecycle(raw: Record<string, unknown>): Judged<ReadPayload> {
  if (!(authCaptureLifecycleTypes as readonly unknown[]).includes(raw.type))
    return refuse('payload_type', `payload.type must be "capture", "void" or "refund"`)
  if (!readPaymentInfo(raw.paymentInfo))
    return refuse('payload_format', 'paymentInfo must be the escrow PaymentInfo struct (the wire spelling)')
  if (!isWord(raw.saltNonce)) return refuse('payload_format', 'saltNonce must be 0x and 64 hex digits')
  if (raw.authorizerSignature !== undefined && !isSignature(raw.authorizerSignature))
    return refuse('payload_format', 'authorizerSignature must be hex')
  if (raw.type !== 'capture' && raw.voidAuthorizerSignature !== undefined)
    return refuse('void_authorizer_signature', `voidAuthorizerSignature is for a capture, not a ${raw.type}`)
  if (raw.type === 'capture') {
    if (raw.feeBps !== undefined) return refuse('payload_format', 'feeBps is the v1.0 fee field: v1.1 takes feeAmount')
    if (!isUintText(raw.amount) || !isUintText(raw.feeAmount) || !isAddressText(raw.feeReceiver))
      return refuse('payload_format', 'a capture carries amount, feeAmount and feeReceiver')
    if (raw.voidAuthorizerSignature !== undefined && !isSignature(raw.voidAuthorizerSignature))
      return refuse('void_authorizer_signature', 'voidAuthorizerSignature must be hex')
  }
  if (raw.type === 'refund' && !isUintText(raw.amount)) return refuse('payload_format', 'a refund carries amount')
  if (raw.type !== 'void' && (!isUintText(raw.expectedCapturableAmount) || !isUintText(raw.expectedRefundableAmount)))
    return refuse('payload_format', `a ${raw.type} carries expectedCapturableAmount and expectedRefundableAmount`)
  return { ok: true, kind: 'lifecycle', payload: raw as unknown as LifecyclePayload }
}

/** Step 1's `saltNonce` rule: present if and only if the bind is on (svc does not nonce-probe v1.0 clients). */
export function checkSaltShape(
  payload: { saltNonce?: unknown },
  extra: Pick<AuthCaptureExtra, 'receiverAuthorizer' | 'policy'>,
): Judged<object> {
  const bound = isBindOn(extra.receiverAuthorizer, extra.policy)
  if (bound && payload.saltNonce === undefined)
    return refuse('payload_format', 'the salt is bound (extra names a receiverAuthorizer): saltNonce is required')
  if (!bound && payload.saltNonce !== undefined)
    return refuse('payload_format', 'the salt is not bound (no receiverAuthorizer nor policy): leave saltNonce out')
  return { ok: true }
}
