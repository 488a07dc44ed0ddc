import { setTimeout as sleep } from 'node:timers/promises'
import type { PaymentPayload, PaymentRequirements, SettleResponse, VerifyResponse } from '@x402/core/types'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import type { Fault } from './book.js'

/** The message an injected refusal carries, so a buyer (and its logs) can tell it from a real one. */
export const faultMessage = (fault: Fault) => `injected by svc fault ${fault.id}`

/** The verdict of a verify fault: invalid, with the fault's reason; nothing is simulated or sent. */
export function injectedVerifyAnswer(fault: Fault, payload: PaymentPayload): VerifyResponse {
  return {
    isValid: false,
    invalidReason: fault.reason ?? 'invalid_payload',
    invalidMessage: faultMessage(fault),
    payer: payerOf(payload),
  }
}

/**
 * What a settle fault does: waits its delay (if any), then refuses with its reason without sending a transaction, or,
 * with a delay only, lets `settle` settle for real.
 */
export async function injectedSettleAnswer<Answer>(
  fault: Fault,
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  settle: () => Promise<Answer>,
): Promise<Answer | SettleResponse> {
  if (fault.delayMs) await sleep(fault.delayMs)
  if (fault.reason === null) return settle()
  return {
    success: false,
    errorReason: fault.reason,
    errorMessage: faultMessage(fault),
    transaction: '',
    network: requirements.network,
    payer: payerOf(payload),
  }
}

const payerOf = (payload: PaymentPayload) => authorizationFields(payload.payload).from
