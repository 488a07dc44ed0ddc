import { createHmac, timingSafeEqual } from 'node:crypto'

/** The header `svc listen --forward-to` signs each delivery with: `t=<unix seconds>,v1=<hex HMAC-SHA256>`. */
export const eventSignatureHeader = 'svc-signature'

/** The HMAC-SHA256 (hex) of `${timestamp}.${body}` under `secret`: the `v1` of {@link eventSignatureHeader}. */
export function signEventBody(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')
}

/** The `svc-signature` header value of `body`, signed now (or at `timestamp`, unix seconds). */
export function eventSignature(secret: string, body: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp},v1=${signEventBody(secret, timestamp, body)}`
}

export type VerifyEventSignatureOptions = {
  /** How old (or how far ahead) the signature's `t` may be. @defaultValue 300 */
  toleranceSeconds?: number | undefined
  /** @defaultValue now */
  nowSeconds?: number | undefined
}

/**
 * Whether `header` (an `svc-signature` value) signs `body` (the raw request body, as received) under `secret`,
 * within the time tolerance; compared in constant time.
 */
export function verifyEventSignature(
  secret: string,
  header: string | null | undefined,
  body: string,
  options: VerifyEventSignatureOptions = {},
): boolean {
  const { toleranceSeconds = 300, nowSeconds = Math.floor(Date.now() / 1000) } = options
  if (!header) return false
  const parts = new Map(header.split(',').map((part) => part.trim().split('=', 2) as [string, string]))
  const timestamp = Number(parts.get('t'))
  const signature = parts.get('v1') ?? ''
  if (
    !Number.isSafeInteger(timestamp) ||
    Math.abs(nowSeconds - timestamp) > toleranceSeconds ||
    !/^[0-9a-f]{64}$/.test(signature)
  )
    return false
  return timingSafeEqual(Buffer.from(signature, 'hex'), Buffer.from(signEventBody(secret, timestamp, body), 'hex'))
}
