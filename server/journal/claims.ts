import type { CompiledPattern } from '../../core/path-pattern.js'
import type { EndpointRow } from '../db/index.js'
import type { JournalEntry } from './journal.js'

/** Frees a claim; `consumed` says an ephemeral endpoint was used up (it stays claimed until it is gone). */
export type Release = (consumed: boolean) => void | Promise<void>

/**
 * Why a claim was refused: the payment is in flight elsewhere, or (PostgreSQL) was at a process that stopped before it
 * answered (`payment-orphaned`: recovery decides it, see server/cluster/payment-claims.ts), another payment holds the
 * ephemeral endpoint, or (PostgreSQL, a process whose cached endpoints are a moment old) that payment used the
 * endpoint up: a 410.
 */
export type ClaimRefusal = 'payment-in-use' | 'payment-orphaned' | 'endpoint-in-use' | 'endpoint-used-up'

/**
 * A granted claim and its release, or the refusal, with the message that answers it (a 402; used up: a 410; with
 * `retryAfter`, a 503 that says when to send it again).
 */
export type Claim =
  | { ok: true; release: Release }
  | { ok: false; reason: ClaimRefusal; message: string; retryAfter?: number }

/** What a request claims: its payment, the ephemeral endpoint it pays for, and the payment's journal entry. */
export type ClaimRequest = {
  /** The payment's identity (server/payments/identifier.ts `paymentIdentity`). */
  paymentId: string
  /** The endpoint, when it is ephemeral (one payment settles it). */
  ephemeral: EndpointRow | undefined
  /** The journal entry of the payment (PostgreSQL writes its row as the claim: server/cluster/payment-claims.ts). */
  entry(): JournalEntry
}

/**
 * The gateway's claims: in this process's memory on SQLite (one process), rows on PostgreSQL
 * (server/cluster/payment-claims.ts: any number of processes).
 */
export type PaymentLocks = {
  /**
   * Claims a payment and, for an ephemeral endpoint, the endpoint. A payment in flight elsewhere or an ephemeral
   * endpoint another payment holds is refused, and that request is not charged.
   */
  claim(request: ClaimRequest): Claim | Promise<Claim>
  /** Remembers a used-up ephemeral endpoint, so its late buyers hear 410 instead of 404. */
  consumed(apiId: string, pattern: CompiledPattern): void
  wasConsumed(apiId: string, method: string, path: string): boolean | Promise<boolean>
  /** Forgets the claimed and used-up ephemeral endpoints (the Sandbox was reverted to a snapshot: they exist again). */
  reset(): void
}

/** Kept for 10 minutes, at most 1000. */
const consumedMemoryMs = 10 * 60_000
const consumedMemorySize = 1000

export const paymentInUse: Claim = {
  ok: false,
  reason: 'payment-in-use',
  message: 'this payment is already being used by another request',
}
export const endpointInUse: Claim = {
  ok: false,
  reason: 'endpoint-in-use',
  message: 'this one-time endpoint is being paid for by another request; it is gone if that payment settles',
}

export const usedUpMessage = 'this one-time endpoint was used up by an earlier payment'

/**
 * In-process locks of the gateway (svc up serves from one process). Payments of ordinary endpoints run in parallel; an
 * ephemeral endpoint serves exactly one settled payment, so its payments are serialized: the first claims it and
 * keeps it if it settles (the endpoint is then deleted); the others are refused before anything is verified.
 */
export function createPaymentLocks(): PaymentLocks {
  const payments = new Set<string>()
  const endpoints = new Set<string>()
  const usedUp: { apiId: string; pattern: CompiledPattern; at: number }[] = []

  return {
    claim({ paymentId, ephemeral }) {
      const endpointId = ephemeral?.id
      if (payments.has(paymentId)) return paymentInUse
      if (endpointId !== undefined && endpoints.has(endpointId)) return endpointInUse
      payments.add(paymentId)
      if (endpointId !== undefined) endpoints.add(endpointId)
      return {
        ok: true,
        release(consumed) {
          payments.delete(paymentId)
          // A used-up endpoint stays claimed: its row is deleted, and a request still holding the old list is refused.
          if (endpointId === undefined) return
          if (!consumed) endpoints.delete(endpointId)
          else setTimeout(() => endpoints.delete(endpointId), consumedMemoryMs).unref()
        },
      }
    },
    consumed(apiId, pattern) {
      usedUp.push({ apiId, pattern, at: Date.now() })
      if (usedUp.length > consumedMemorySize) usedUp.shift()
    },
    wasConsumed(apiId, method, path) {
      const oldest = Date.now() - consumedMemoryMs
      while (usedUp.length > 0 && usedUp[0]!.at < oldest) usedUp.shift()
      return usedUp.some(
        (entry) => entry.apiId === apiId && entry.pattern.method === method && entry.pattern.regex.test(path),
      )
    },
    reset() {
      endpoints.clear()
      usedUp.length = 0
    },
  }
}

/** A refused claim: why, and the message that answers it. */
export type ClaimRefused = Extract<Claim, { ok: false }>
