import type { FacilitatorClient } from '@x402/core/server'
import {
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type SupportedResponse,
  type VerifyResponse,
} from '@x402/core/types'
import { sandboxChainRestarting } from '../../core/errors.js'
import type { SandboxFacilitator } from './facilitator.js'
import { checkExactEvmFields } from './request.js'

/**
 * The Sandbox facilitator as an x402 `FacilitatorClient` called in process: what `HTTPFacilitatorClient` does against
 * its `/verify` and `/settle`, without the two HTTP round trips and JSON codecs of each paid request. It answers the
 * same: a verdict, or a `VerifyError`/`SettleError` with status 400 for a malformed exact EVM field and 503 while the
 * chain cannot judge payments (as the HTTP client raises them). x402's outer schemas are not run again: the payload
 * comes from the gateway's decoding and the requirements are its own offer. It takes no fault: the gateway took them
 * (server/payments/faults.ts), so a payment meets a fault once; the HTTP routes take them for sellers calling over HTTP.
 */
export function createInProcessFacilitatorClient(facilitator: SandboxFacilitator): FacilitatorClient {
  return {
    async verify(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse> {
      const malformed = checkExactEvmFields(payload, requirements)
      if (malformed)
        throw new VerifyError(400, { isValid: false, invalidReason: malformed.reason, invalidMessage: malformed.error })
      const answer = await facilitator.verifyJudged(payload, requirements)
      if (answer === 'chain-down')
        throw new VerifyError(503, {
          isValid: false,
          invalidReason: 'chain_unavailable',
          invalidMessage: sandboxChainRestarting,
        })
      return answer
    },
    async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      const malformed = checkExactEvmFields(payload, requirements)
      if (malformed)
        throw new SettleError(400, {
          success: false,
          errorReason: malformed.reason,
          errorMessage: malformed.error,
          transaction: '',
          network: requirements.network,
        })
      const answer = await facilitator.settleJudged(payload, requirements)
      if (answer === 'chain-down')
        throw new SettleError(503, {
          success: false,
          errorReason: 'chain_unavailable',
          errorMessage: sandboxChainRestarting,
          transaction: '',
          network: requirements.network,
        })
      return answer
    },
    async getSupported(): Promise<SupportedResponse> {
      return facilitator.facilitator.getSupported() as SupportedResponse
    },
  }
}
