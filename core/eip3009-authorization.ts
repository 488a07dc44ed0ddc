/** The fields of an EIP-3009 authorization that identify and bound a payment, as strings where the payload has them. */
export type AuthorizationFields = { from: string | undefined; nonce: string | undefined; validBefore: string | undefined }

/**
 * Reads `payload.authorization` of an x402 scheme payload (the exact scheme's EIP-3009 payload) without trusting its
 * shape: each field is its string (a number for `validBefore` is written out), or undefined.
 */
export function authorizationFields(schemePayload: unknown): AuthorizationFields {
  const authorization = (schemePayload as { authorization?: Record<string, unknown> } | null | undefined)?.authorization
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  const validBefore = authorization?.validBefore
  return {
    from: text(authorization?.from),
    nonce: text(authorization?.nonce),
    validBefore: typeof validBefore === 'number' ? String(validBefore) : text(validBefore),
  }
}
