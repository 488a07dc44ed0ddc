/*
 * What a buyer's request carries, read and checked before anything is paid: the PAYMENT-SIGNATURE header
 * (`decodePayment`), the builder code its payload may carry (`builderCodeOf`), and the request path (`normalizePath`).
 */
import { decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { cutText, echoedValueLimit } from '../../core/http.js'
import { eip3009PayloadSchema, shapeProblem } from '../../chain/facilitator/index.js'
import { BUILDER_CODE, BUILDER_CODE_PATTERN, MAX_SERVICE_CODES } from '@x402/extensions/builder-code'

/** A decoded `PAYMENT-SIGNATURE`, or why it is not one (the message of the 402 that refuses it). */
export type DecodedPayment = { ok: true; payload: PaymentPayload } | { ok: false; error: string }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

const refused = (error: string): DecodedPayment => ({ ok: false, error })

/**
 * The payload of a `PAYMENT-SIGNATURE` header (x402's codec), or why it is not one. Its outline is checked here (an
 * x402 v2 payload naming the requirements it accepted; the requirements are then matched field by field), and so is
 * an EIP-3009 scheme payload, field by field (the shape the facilitator checks too): a malformed one is refused with
 * a 402 saying which field is wrong, and never reaches the facilitator. A Permit2 payload (`permit2Authorization`) is
 * left to the facilitator. x402's zod schema would check the outline again on the hot path (~0.1 ms).
 */
/** Where x402 v1 code can pay offline, said wherever svc's gateway refuses v1 (issue 23: the twin speaks v1). */
export const v1CodeHint =
  "x402 v1 code pays a seller of its own on the Base Sepolia twin (svc up --twin base-sepolia) through svc's facilitator"

export function decodePayment(header: string): DecodedPayment {
  let value: unknown
  try {
    value = decodePaymentSignatureHeader(header.trim())
  } catch {
    return refused('malformed PAYMENT-SIGNATURE: expected base64 of a JSON x402 PaymentPayload')
  }
  if (!isRecord(value)) return refused('malformed PAYMENT-SIGNATURE: expected a JSON object (an x402 PaymentPayload)')
  if (value.x402Version !== 2)
    return refused(
      `PAYMENT-SIGNATURE carries x402 version ${cutText(String(JSON.stringify(value.x402Version)), echoedValueLimit)}: svc speaks x402 v2 only${value.x402Version === 1 ? `; ${v1CodeHint}` : ''}`,
    )
  if (!isRecord(value.accepted))
    return refused('malformed PAYMENT-SIGNATURE: accepted: expected the payment requirements the payment accepts')
  if (!isRecord(value.payload))
    return refused('malformed PAYMENT-SIGNATURE: payload: expected the scheme payload (signature and authorization)')
  // A batch-settlement payload (a deposit, voucher or refund on a channel) is checked by the package's scheme.
  const batch = value.accepted.scheme === 'batch-settlement'
  const problem =
    batch || 'permit2Authorization' in value.payload
      ? undefined
      : shapeProblem(eip3009PayloadSchema, value.payload, 'payload')
  if (problem) return refused(`malformed PAYMENT-SIGNATURE: ${problem}`)
  return { ok: true, payload: value as PaymentPayload }
}

/** The ERC-8021 attribution of a payment: app code `a`, wallet code `w`, service codes `s`. */
export type BuilderCode = { a?: string; w?: string; s?: string[] }

export type BuilderCodeOf = { ok: true; code: BuilderCode | undefined } | { ok: false; error: string }

const invalid = (code: unknown): BuilderCodeOf => ({
  ok: false,
  error: `invalid ${BUILDER_CODE} extension: "${String(code).slice(0, 40)}" is not a builder code (1-32 characters, lowercase alphanumeric and underscores only)`,
})

/**
 * The `builder-code` extension of a payment (x402's ERC-8021 attribution), checked as its schema says
 * (`BUILDER_CODE_SCHEMA`: `a`, `w` and each of `s` match `BUILDER_CODE_PATTERN`, `s` a string or at most
 * {@link MAX_SERVICE_CODES} of them, nothing else). None: undefined. The payload goes to the facilitator as it came;
 * the code is recorded on the settlement.
 */
export function builderCodeOf(payload: PaymentPayload): BuilderCodeOf {
  const extension = payload.extensions?.[BUILDER_CODE] as { info?: unknown } | undefined
  if (extension === undefined) return { ok: true, code: undefined }
  const info = extension?.info
  if (info === null || typeof info !== 'object' || Array.isArray(info))
    return { ok: false, error: `invalid ${BUILDER_CODE} extension: its info must be an object of a, w and s` }
  const code: BuilderCode = {}
  for (const [key, value] of Object.entries(info)) {
    if (key === 'a' || key === 'w') {
      if (typeof value !== 'string' || !BUILDER_CODE_PATTERN.test(value)) return invalid(value)
      code[key] = value
    } else if (key === 's') {
      const codes: unknown[] = Array.isArray(value) ? value : [value]
      if (codes.length > MAX_SERVICE_CODES)
        return { ok: false, error: `invalid ${BUILDER_CODE} extension: more than ${MAX_SERVICE_CODES} service codes` }
      for (const item of codes) if (typeof item !== 'string' || !BUILDER_CODE_PATTERN.test(item)) return invalid(item)
      code.s = codes as string[]
    } else return { ok: false, error: `invalid ${BUILDER_CODE} extension: unknown field "${key.slice(0, 40)}"` }
  }
  return { ok: true, code: Object.keys(code).length === 0 ? undefined : code }
}

/**
 * The path a request is matched and forwarded with: dot segments resolved (`/free/../paid` is `/paid`, also when
 * encoded as `%2e`), so a cheap pattern cannot reach a dearer route of an upstream that normalizes paths.
 * Returns undefined for something that is not an origin-form path.
 */
export function normalizePath(rawPath: string): string | undefined {
  if (!rawPath.startsWith('/') || rawPath.startsWith('//')) return undefined
  if (!rawPath.includes('.') && !/%2e/i.test(rawPath)) return rawPath
  try {
    return new URL(rawPath, 'http://gateway.invalid').pathname
  } catch {
    return undefined
  }
}
