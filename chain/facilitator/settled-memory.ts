import { createHash } from 'node:crypto'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { canonicalJson } from '../../core/canonical-json.js'

/**
 * How many settled payloads the facilitator remembers for idempotent answers (a resource server that retries a
 * settlement it already got gets the same transaction). About 1.2 KB of heap each: a sandbox that runs for hours must
 * not hold every payment it ever settled. A payload settled longer ago than that is refused by the chain itself (its
 * authorization is used).
 */
export const settledMemory = 10_000

/** Identity of a settlement: the signed payload and the requirements it is settled against. */
export function settlementKey(payload: PaymentPayload, requirements: PaymentRequirements): string {
  return createHash('sha256')
    .update(canonicalJson([payload.payload, requirements], { hexCaseInsensitive: true }))
    .digest('hex')
}
