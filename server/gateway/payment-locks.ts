import { decodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import type { CompiledPattern } from '../../core/path-pattern.js'

/**
 * The payload of a `PAYMENT-SIGNATURE` header (x402's codec), or why it is not one. Only its outline is checked here
 * (an x402 v2 payload naming the requirements it accepted): the requirements are then matched field by field, and
 * the facilitator validates the rest. x402's zod schema would check it all again on the hot path (~0.1 ms).
 */
export function decodePayment(header: string): PaymentPayload | string {
  let value: unknown
  try {
    value = decodePaymentSignatureHeader(header.trim())
  } catch {
    return 'malformed PAYMENT-SIGNATURE: expected base64 of a JSON x402 PaymentPayload'
  }
  if (!isRecord(value)) return 'malformed PAYMENT-SIGNATURE: expected a JSON object (an x402 PaymentPayload)'
  if (value.x402Version !== 2) return `PAYMENT-SIGNATURE carries x402 version ${JSON.stringify(value.x402Version)}: svc speaks x402 v2 only`
  if (!isRecord(value.accepted)) return 'malformed PAYMENT-SIGNATURE: accepted: expected the payment requirements the payment accepts'
  if (!isRecord(value.payload)) return 'malformed PAYMENT-SIGNATURE: payload: expected the scheme payload (signature and authorization)'
  return value as PaymentPayload
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Frees a claim; `consumed` says an ephemeral endpoint was used up (it stays claimed until it is gone). */
export type Release = (consumed: boolean) => void

export type PaymentLocks = {
  /**
   * Claims a payment (by its header) and, for an ephemeral endpoint, the endpoint: a payment in flight elsewhere or an
   * ephemeral endpoint another payment holds answers why (a string) instead, and that request is not charged.
   */
  claim(paymentHeader: string, ephemeralEndpointId: string | undefined): Release | string
  /** Remembers a used-up ephemeral endpoint, so its late buyers hear 410 instead of 404. */
  consumed(apiId: string, pattern: CompiledPattern): void
  wasConsumed(apiId: string, method: string, path: string): boolean
}

/** Kept for 10 minutes, at most 1000. */
const consumedMemoryMs = 10 * 60_000
const consumedMemorySize = 1000

/**
 * In-process locks of the gateway (svc serves from one process). Payments of ordinary endpoints run in parallel; an
 * ephemeral endpoint serves exactly one settled payment, so its payments are serialized: the first claims it and
 * keeps it if it settles (the endpoint is then deleted); the others are refused before anything is verified.
 */
export function createPaymentLocks(): PaymentLocks {
  const payments = new Set<string>()
  const endpoints = new Set<string>()
  const usedUp: { apiId: string; pattern: CompiledPattern; at: number }[] = []

  return {
    claim(paymentHeader, endpointId) {
      if (payments.has(paymentHeader)) return 'this payment is already being used by another request'
      if (endpointId !== undefined && endpoints.has(endpointId)) return 'this one-time endpoint is being paid for by another request; it is gone if that payment settles'
      payments.add(paymentHeader)
      if (endpointId !== undefined) endpoints.add(endpointId)
      return (consumed) => {
        payments.delete(paymentHeader)
        // A used-up endpoint stays claimed: its row is deleted, and a request still holding the old list is refused.
        if (endpointId === undefined) return
        if (!consumed) endpoints.delete(endpointId)
        else setTimeout(() => endpoints.delete(endpointId), consumedMemoryMs).unref()
      }
    },
    consumed(apiId, pattern) {
      usedUp.push({ apiId, pattern, at: Date.now() })
      if (usedUp.length > consumedMemorySize) usedUp.shift()
    },
    wasConsumed(apiId, method, path) {
      const oldest = Date.now() - consumedMemoryMs
      while (usedUp.length > 0 && usedUp[0]!.at < oldest) usedUp.shift()
      return usedUp.some((entry) => entry.apiId === apiId && entry.pattern.method === method && entry.pattern.regex.test(path))
    },
  }
}
