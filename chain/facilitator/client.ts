import type { x402Facilitator } from '@x402/core/facilitator'
import { parsePaymentPayload, parsePaymentRequirements } from '@x402/core/schemas'
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
import {
  describeIssue,
  eip3009PayloadSchema,
  exactEvmRequirementsSchema,
  isExactEvm,
  schemePayloadSchema,
  shapeProblem,
} from './exact.js'
import { batchSettlementPayloadSchema } from '../batch-settlement/index.js'

/**
 * What the in-process client calls of the Sandbox facilitator (`SandboxFacilitator`). Declared here, not imported:
 * facilitator.ts builds its routes (routes.ts) on this file's request checks, and files do not import in a circle.
 */
export type InProcessFacilitator = {
  facilitator: x402Facilitator
  verifyJudged(payload: PaymentPayload, requirements: PaymentRequirements): Promise<VerifyResponse | 'chain-down'>
  settleJudged(payload: PaymentPayload, requirements: PaymentRequirements): Promise<SettleResponse | 'chain-down'>
}

/**
 * The Sandbox facilitator as an x402 `FacilitatorClient` called in process: what `HTTPFacilitatorClient` does against
 * its `/verify` and `/settle`, without the two HTTP round trips and JSON codecs of each paid request. It answers the
 * same: a verdict, or a `VerifyError`/`SettleError` with status 400 for a malformed exact EVM field and 503 while the
 * chain cannot judge payments (as the HTTP client raises them). x402's outer schemas are not run again: the payload
 * comes from the gateway's decoding and the requirements are its own offer. It takes no fault: the gateway took them
 * (server/payments/facilitator-calls.ts), so a payment meets a fault once; the HTTP routes take them for sellers
 * calling over HTTP.
 */
export function createInProcessFacilitatorClient(facilitator: InProcessFacilitator): FacilitatorClient {
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

/** Why a `/verify` or `/settle` body was refused: the x402 reason and a bounded message naming the first problem. */
export type RefusedRequest = { error: string; reason: 'invalid_payload' | 'invalid_payment_requirements' }

export type FacilitatorRequest = { payload: PaymentPayload; requirements: PaymentRequirements } | RefusedRequest

/**
 * Validates a `/verify` or `/settle` body: x402's own schemas first (`@x402/core/schemas`), then, for the exact
 * and upto schemes on an EVM network, the fields they leave open (addresses, amounts, times, nonce, signature), so a
 * malformed one is refused here rather than thrown from deep inside `@x402/evm`. Other schemes, networks and
 * versions pass on, for the facilitator to refuse with its verdict (`unsupported_scheme`, `invalid_network` …).
 */
export function parseFacilitatorRequest(body: unknown): FacilitatorRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return {
      error: 'expected a JSON body {x402Version, paymentPayload, paymentRequirements}',
      reason: 'invalid_payload',
    }
  const { paymentPayload, paymentRequirements } = channelActionTimeouts(body as Record<string, unknown>)
  const payload = parsePaymentPayload(paymentPayload)
  if (!payload.success)
    return { error: describeIssue('paymentPayload', payload.error.issues[0]), reason: 'invalid_payload' }
  const requirements = parsePaymentRequirements(paymentRequirements)
  if (!requirements.success)
    return {
      error: describeIssue('paymentRequirements', requirements.error.issues[0]),
      reason: 'invalid_payment_requirements',
    }
  const parsed = { payload: payload.data as PaymentPayload, requirements: requirements.data as PaymentRequirements }
  return checkExactEvmFields(parsed.payload, parsed.requirements) ?? parsed
}

/**
 * A batch-settlement seller's claim, settle or refund (`@x402/evm`'s channel manager) names `maxTimeoutSeconds: 0`
 * (no buyer waits on it), which x402's schemas refuse: it is read as 1 second, the least they allow.
 */
function channelActionTimeouts(body: Record<string, unknown>): Record<string, unknown> {
  const payload = body.paymentPayload as
    | { accepted?: Record<string, unknown>; payload?: { type?: unknown } }
    | undefined
  const isAction =
    payload?.accepted?.scheme === 'batch-settlement' &&
    ['claim', 'settle', 'refund'].includes(String(payload.payload?.type))
  if (!isAction) return body
  const lift = (requirements: unknown) =>
    (requirements as { maxTimeoutSeconds?: unknown } | null)?.maxTimeoutSeconds === 0
      ? { ...(requirements as object), maxTimeoutSeconds: 1 }
      : requirements
  return {
    ...body,
    paymentPayload: { ...payload, accepted: lift(payload.accepted) },
    paymentRequirements: lift(body.paymentRequirements),
  }
}

/**
 * For an x402 v2 payment of the exact or upto scheme on an EVM network: the fields x402's schemas leave open (addresses,
 * amounts, times, nonce, signature; EIP-3009's or Permit2's), checked so a malformed one is refused rather than thrown from inside
 * `@x402/evm`. Undefined when they are well formed (or the payment is of another kind).
 */
export function checkExactEvmFields(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): RefusedRequest | undefined {
  // v1 (a twin's `exact` on a v1 network name): its payload is EIP-3009's, whatever the network (a v1 network svc does
  // not settle on is refused by the facilitator as invalid_network).
  if (payload.x402Version === 1) {
    const problem =
      requirements.scheme === 'exact'
        ? shapeProblem(eip3009PayloadSchema, payload.payload, 'paymentPayload.payload')
        : undefined
    return problem ? { error: problem, reason: 'invalid_payload' } : undefined
  }
  if (payload.x402Version !== 2) return undefined
  if (isExactEvm(requirements)) {
    const problem = shapeProblem(exactEvmRequirementsSchema, requirements, 'paymentRequirements')
    if (problem) return { error: problem, reason: 'invalid_payment_requirements' }
  }
  const problem =
    (isExactEvm(payload.accepted)
      ? shapeProblem(exactEvmRequirementsSchema, payload.accepted, 'paymentPayload.accepted')
      : undefined) ??
    (isExactEvm(requirements)
      ? shapeProblem(schemePayloadSchema(requirements, payload.payload), payload.payload, 'paymentPayload.payload')
      : undefined)
  if (problem) return { error: problem, reason: 'invalid_payload' }
  return checkBatchSettlementFields(payload, requirements)
}

/** For a batch-settlement payment: the payload's fields, as {@link checkExactEvmFields} does for exact and upto. */
function checkBatchSettlementFields(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
): RefusedRequest | undefined {
  if (requirements.scheme !== 'batch-settlement' || !requirements.network.startsWith('eip155:')) return undefined
  const refused = shapeProblem(exactEvmRequirementsSchema, requirements, 'paymentRequirements')
  if (refused) return { error: refused, reason: 'invalid_payment_requirements' }
  const schema = batchSettlementPayloadSchema(payload.payload)
  const problem = schema && shapeProblem(schema, payload.payload, 'paymentPayload.payload')
  return problem ? { error: problem, reason: 'invalid_payload' } : undefined
}
