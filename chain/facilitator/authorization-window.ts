import type { PaymentPayload } from '@x402/core/types'
import type { Clock } from '../../core/clock.js'
import { depositWindowReason } from '../batch-settlement/scheme.js'

/** The exact EVM scheme's reasons for an authorization outside its window (as @x402/evm names them). */
export const validBeforeExpiredReason = 'invalid_exact_evm_payload_authorization_valid_before'
export const validAfterInFutureReason = 'invalid_exact_evm_payload_authorization_valid_after'

/** Seconds an authorization must still be valid for when it is judged (the scheme's own margin for the settlement). */
const settleMarginSeconds = 6

/**
 * Why an EIP-3009 authorization is outside its window at `nowSeconds` (the scheme's own rule: `validBefore` at
 * least 6 s ahead, `validAfter` not ahead), or undefined (inside it, or no EIP-3009 authorization in the payload).
 * @x402/evm judges the window by the machine's clock; the Sandbox facilitator asks this with svc's clock when
 * `svc time advance` has moved it.
 */
export function authorizationWindowReason(payload: PaymentPayload['payload'], nowSeconds: number): string | undefined {
  const authorization = (payload as { authorization?: { validBefore?: unknown; validAfter?: unknown } } | undefined)
    ?.authorization
  const validBefore = toSeconds(authorization?.validBefore)
  const validAfter = toSeconds(authorization?.validAfter)
  if (validBefore !== undefined && validBefore < BigInt(nowSeconds + settleMarginSeconds))
    return validBeforeExpiredReason
  if (validAfter !== undefined && validAfter > BigInt(nowSeconds)) return validAfterInFutureReason
  return undefined
}

/**
 * Why an authorization refused by svc's clock would have passed by the machine's: the buyer signed by the machine's
 * clock while `svc time advance` has moved svc's ahead. Undefined when the offset does not explain the refusal.
 */
export function offsetExplains(payload: PaymentPayload, clock: Clock): string | undefined {
  const machineNow = Math.floor((clock.now() - clock.offsetMs) / 1000)
  const byMachine = authorizationWindowReason(payload.payload, machineNow) ?? depositWindowReason(payload, machineNow)
  if (clock.offsetMs <= 0 || byMachine !== undefined) return undefined
  return `svc's clock is ${Math.round(clock.offsetMs / 1000)} s ahead of the machine's (svc time advance): the buyer signed by the machine's clock; sign by svc's (GET /dev/time on the Sandbox control plane; svc pay and startSandbox's buyer do), or svc revert to a snapshot taken before`
}

function toSeconds(value: unknown): bigint | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return BigInt(value)
  if (typeof value === 'string' && /^\d{1,78}$/.test(value)) return BigInt(value)
  return undefined
}
