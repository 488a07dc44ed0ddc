import { HTTPFacilitatorClient, type FacilitatorClient } from '@x402/core/server'
import {
  SettleError,
  VerifyError,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
} from '@x402/core/types'
import { sandboxChainMoving } from '../../core/errors.js'
import { clusterFacilitatorPath, clusterHeader } from './cluster-secret.js'

/**
 * The chain owner's Sandbox facilitator, for a process that does not own the chain: x402's HTTP client against the
 * facilitator routes the owner serves on its main listener (server/cluster/cluster-routes.ts), with the cluster
 * secret. An owner that cannot be reached (killed; its successor not yet up) is a 503 "moving" verdict, as the
 * facilitator's own 503 while its chain restarts: the buyer retries, never told its payment is invalid.
 */
export function createOwnerFacilitatorClient(ownerUrl: string, secret: string): FacilitatorClient {
  const headers = { [clusterHeader]: secret }
  const http = new HTTPFacilitatorClient({
    url: `${ownerUrl}${clusterFacilitatorPath}`,
    timeoutMs: 30_000,
    createAuthHeaders: async () => ({ verify: headers, settle: headers, supported: headers }),
  })
  const moving = (error: unknown) =>
    !(error instanceof VerifyError) && !(error instanceof SettleError) ? error : undefined
  return {
    async verify(payload: PaymentPayload, requirements: PaymentRequirements) {
      try {
        return await http.verify(payload, requirements)
      } catch (error) {
        if (!moving(error)) throw error
        throw new VerifyError(503, {
          isValid: false,
          invalidReason: 'chain_unavailable',
          invalidMessage: sandboxChainMoving,
        })
      }
    },
    async settle(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse> {
      try {
        return await http.settle(payload, requirements)
      } catch (error) {
        if (!moving(error)) throw error
        throw new SettleError(503, {
          success: false,
          errorReason: 'chain_unavailable',
          errorMessage: sandboxChainMoving,
          transaction: '',
          network: requirements.network,
        })
      }
    },
    getSupported: () => http.getSupported(),
  }
}
