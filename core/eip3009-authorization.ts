/** The fields of a payment's authorization that identify and bound a payment, as strings where the payload has them. */
export type AuthorizationFields = {
  from: string | undefined
  nonce: string | undefined
  validBefore: string | undefined
}

/**
 * Reads the authorization of an x402 EVM scheme payload without trusting its shape: the exact scheme's EIP-3009
 * `payload.authorization` (`from`, `nonce`, `validBefore`), or a Permit2 `payload.permit2Authorization` (exact via
 * Permit2, upto), whose `from`, `nonce` and `deadline` play the same parts. Each field is its string (a number is
 * written out), or undefined.
 */
export function authorizationFields(schemePayload: unknown): AuthorizationFields {
  const payload = schemePayload as
    | { authorization?: Record<string, unknown>; permit2Authorization?: Record<string, unknown> }
    | null
    | undefined
  const text = (value: unknown) =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined
  const permit2 = payload?.permit2Authorization
  if (permit2 && typeof permit2 === 'object')
    return { from: text(permit2.from), nonce: text(permit2.nonce), validBefore: text(permit2.deadline) }
  const authorization = payload?.authorization
  return {
    from: typeof authorization?.from === 'string' ? authorization.from : undefined,
    nonce: typeof authorization?.nonce === 'string' ? authorization.nonce : undefined,
    validBefore: text(authorization?.validBefore),
  }
}
