import type { PaymentPayload } from '@x402/core/types'
import { BUILDER_CODE, BUILDER_CODE_PATTERN, MAX_SERVICE_CODES } from '@x402/extensions/builder-code'

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
