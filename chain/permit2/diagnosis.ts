import type { PaymentPayload, VerifyResponse } from '@x402/core/types'
import type { Address, PublicClient } from 'viem'
import { isPermit2NonceSpent } from './nonces.js'

/**
 * Says why a Permit2 payment's simulation failed when `@x402/evm`'s own diagnosis cannot (it reads the balance and the
 * allowance, not Permit2's nonces, and answers `permit2_simulation_failed`): a nonce Permit2 already spent means the
 * payment was settled before (a replay). The reason code stays the package's; the message names the cause.
 */
export async function explainPermit2Refusal(
  client: PublicClient,
  payload: PaymentPayload,
  verdict: VerifyResponse,
): Promise<VerifyResponse> {
  if (verdict.invalidReason !== 'permit2_simulation_failed' || verdict.invalidMessage) return verdict
  const authorization = (payload.payload as { permit2Authorization?: { from?: unknown; nonce?: unknown } })
    .permit2Authorization
  if (typeof authorization?.from !== 'string' || typeof authorization.nonce !== 'string') return verdict
  const spent = await isPermit2NonceSpent(client, authorization.from as Address, BigInt(authorization.nonce)).catch(
    () => false,
  )
  if (!spent) return verdict
  return {
    ...verdict,
    invalidMessage: `Permit2 nonce ${authorization.nonce} of ${authorization.from} was already used: this payment was settled before`,
  }
}
