import { cutText, errorMessageLimit } from '../../core/http.js'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import {
  PAYMENT_IDENTIFIER,
  validatePaymentIdentifier,
  validatePaymentIdentifierRequirement,
} from '@x402/extensions/payment-identifier'
import { machineClock, type Clock } from '../../core/clock.js'
import { canonicalJson } from '../../core/canonical-json.js'
import { authorizationFields } from '../../core/eip3009-authorization.js'
import type { GatewayStore, PaymentIdClaims } from '../db/index.js'
import type { CompiledPattern } from '../../core/path-pattern.js'
import type { ClaimRefused, ClaimRequest, PaymentLocks } from '../journal/index.js'
import type { PaymentOutcome } from './attempt.js'

/** What the gateway does with a payment's `payment-identifier` (x402's idempotency extension). */
export type PaymentIdCheck =
  /** No id: the payment is served as any other. */
  | { type: 'none' }
  /** A malformed id (400), an id still in flight (409) or reused for another request (409): nothing is charged. */
  | { type: 'refused'; outcome: PaymentOutcome }
  /**
   * The id was paid already: its kept answer. `samePayment`: the very payment was resent (it cannot be verified
   * again: its authorization is used); otherwise the new payment is verified first, so only its payer gets the answer.
   */
  | { type: 'replay'; outcome: PaymentOutcome; samePayment: boolean }
  /** The first request with this id: `done` keeps its answer if it was paid, and frees the id. */
  | { type: 'first'; done(outcome: PaymentOutcome | undefined, settlementId?: string): Promise<void> }

/** A paid request as its payment-identifier is judged: what it asks for and the payment it carries. */
export type PaymentIdRequest = {
  apiId: string
  payload: PaymentPayload
  requirements: PaymentRequirements
  /** The payment itself (`paymentIdentity` below). */
  paymentKey: string
  method: string
  path: string
  query: string
  /** The endpoint requires an id (its 402 declares `required: true`). */
  required: boolean
}

export type PaymentIdentifiers = {
  check(request: PaymentIdRequest): Promise<PaymentIdCheck>
  /**
   * Pays `request` unless its payment-identifier answers instead: a refused id (400, 409), or an id paid already,
   * whose kept answer is replayed (nothing settled twice) to the very payment resent, or to another payment of the
   * id once `verify` accepts it (undefined; else the answer to its refusal). Otherwise `pay` answers, and a paid
   * answer is kept for the id.
   */
  around(
    request: PaymentIdRequest,
    steps: { verify(): Promise<PaymentOutcome | undefined>; pay(): Promise<PaymentOutcome> },
  ): Promise<PaymentOutcome>
}

/** What is kept: an answer up to 1 MiB, for 24 hours, at most 10,000 answers and 64 MiB of bodies in all. */
export const paymentAnswerLimits = Object.freeze({
  maxAnswerBytes: 1024 * 1024,
  ttlMs: 24 * 60 * 60_000,
  maxRows: 10_000,
  maxBytes: 64 * 1024 * 1024,
})

/** `retryAfter`: seconds after which retrying helps (an id in flight). */
const refused = (status: number, error: string, retryAfter?: number): PaymentIdCheck => ({
  type: 'refused',
  // The package's messages may quote what the buyer sent: bounded, as every echoed value is.
  outcome: {
    type: 'error',
    status,
    error: cutText(error, errorMessageLimit),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  },
})

/**
 * The payment-identifier extension at the gateway. A paid answer is kept (SQLite, so a restart keeps it) under its
 * API, payer and id; the same id asking the same thing (method, path and query, accepted requirements) gets that
 * answer again — no second settlement, no second upstream call. While the first request with an id is in flight, a
 * second one gets a 409 to retry: the in-flight ids are in memory, and with `claims` (PostgreSQL, any number of
 * processes: server/db/payment-id-claims.ts) also rows every process sees, claimed before the kept answer is read. An answer that was
 * not charged (refused, upstream failure) is not kept: retrying it pays normally. The answers are read and written
 * through the gateway's store, as its own bookkeeping: keeping one does not empty the gateway's caches.
 */
export function createPaymentIdentifiers(
  store: GatewayStore | Promise<GatewayStore>,
  clock: Clock = machineClock,
  log: (message: string) => void = (message) => console.error(message),
  claims?: PaymentIdClaims,
): PaymentIdentifiers {
  const inFlight = new Map<string, string>()
  const limits = paymentAnswerLimits

  async function check({
    apiId,
    payload,
    requirements,
    paymentKey,
    method,
    path,
    query,
    required,
  }: PaymentIdRequest): Promise<PaymentIdCheck> {
    const extension = payload.extensions?.[PAYMENT_IDENTIFIER]
    const requirement = validatePaymentIdentifierRequirement(payload, required)
    if (!requirement.valid) return refused(400, (requirement.errors ?? []).join('; '))
    if (extension === undefined) return { type: 'none' }
    // Checked by the package's rules without the `schema` the buyer echoes: with one, validatePaymentIdentifier
    // builds and compiles an Ajv validator per call (~14 ms: it halved paid throughput) from the buyer's own JSON.
    // The declared schema says no more than those rules (a required boolean, the id's format).
    const validation = validatePaymentIdentifier(
      typeof extension === 'object' && extension !== null
        ? { info: (extension as { info?: unknown }).info }
        : extension,
    )
    if (!validation.valid)
      return refused(400, `invalid ${PAYMENT_IDENTIFIER} extension: ${(validation.errors ?? []).join('; ')}`)
    // validatePaymentIdentifier checks the id's format too (16-128 letters, digits, hyphens, underscores).
    const id = (extension as { info: { id?: string } }).info.id
    if (id === undefined) return { type: 'none' }

    const payer = (authorizationFields(payload.payload).from ?? '').toLowerCase()
    const requestKey = canonicalJson({ method, path, query, requirements }, { hexCaseInsensitive: true })
    const key = { apiId, payer, paymentId: id }
    const flightKey = canonicalJson([apiId, payer, id])
    const reused = `this ${PAYMENT_IDENTIFIER} id was used for a different request or payment option; use a new id`

    const inFlightAlready = (running: string) =>
      running === requestKey
        ? refused(409, `a payment with this ${PAYMENT_IDENTIFIER} id is still in flight; retry when it is answered`, 1)
        : refused(409, reused)
    const running = inFlight.get(flightKey)
    if (running !== undefined) return inFlightAlready(running)
    // Taken before anything is awaited, so a second request of this process finds it; then across processes.
    inFlight.set(flightKey, requestKey)
    let held = false
    const free = async () => {
      try {
        if (held) await claims?.release(key)
      } finally {
        inFlight.delete(flightKey)
      }
    }
    let kept: Awaited<ReturnType<GatewayStore['findPaymentAnswer']>>
    try {
      if (claims) {
        const claim = await claims.claim(key, requestKey)
        if (!claim.claimed) {
          inFlight.delete(flightKey)
          return inFlightAlready(claim.requestKey)
        }
        held = true
      }
      const since = new Date(clock.now() - limits.ttlMs).toISOString()
      kept = await (await store).findPaymentAnswer(key, since)
    } catch (error) {
      await free().catch(() => {})
      throw error
    }
    if (kept) {
      await free().catch((error: unknown) =>
        log(`could not let go of a payment-identifier id: ${(error as Error).message}`),
      )
      if (kept.request_key !== requestKey) return refused(409, reused)
      const samePayment = kept.payment_key === paymentKey
      if (kept.body === null)
        return {
          type: 'replay',
          samePayment,
          outcome: {
            type: 'error',
            status: 409,
            error: `this ${PAYMENT_IDENTIFIER} id was paid and answered already (settlement ${kept.settlement_id}); its answer of ${kept.body_bytes} bytes was too large to keep`,
          },
        }
      return {
        type: 'replay',
        samePayment,
        outcome: {
          type: 'paid',
          status: kept.status,
          headers: JSON.parse(kept.headers) as Record<string, string | string[]>,
          body: Buffer.from(kept.body),
          written: () => {},
        },
      }
    }

    return {
      type: 'first',
      async done(outcome, settlementId) {
        try {
          if (outcome?.type !== 'paid' || settlementId === undefined) return
          const fits = outcome.body.length <= limits.maxAnswerBytes
          const now = clock.now()
          await (await store).keepPaymentAnswer(
            {
              api_id: apiId,
              payer,
              payment_id: id,
              request_key: requestKey,
              payment_key: paymentKey,
              settlement_id: settlementId,
              status: outcome.status,
              headers: JSON.stringify(outcome.headers),
              body: fits ? outcome.body : null,
              body_bytes: outcome.body.length,
              created_at: new Date(now).toISOString(),
            },
            { since: new Date(now - limits.ttlMs).toISOString(), maxRows: limits.maxRows, maxBytes: limits.maxBytes },
          )
        } finally {
          // The answer is kept before the id is let go: whoever claims it next finds the answer.
          await free()
        }
      },
    }
  }

  return {
    check,
    async around(request, { verify, pay }) {
      const remembered = await check(request)
      if (remembered.type === 'refused') return remembered.outcome
      if (remembered.type === 'replay') {
        if (remembered.samePayment) return remembered.outcome
        return (await verify()) ?? remembered.outcome
      }
      let outcome: PaymentOutcome | undefined
      try {
        outcome = await pay()
        return outcome
      } finally {
        if (remembered.type === 'first')
          await remembered
            .done(outcome, outcome?.type === 'paid' ? outcome.settlementId : undefined)
            .catch((error: unknown) =>
              log(`could not keep the answer of a payment-identifier: ${(error as Error).message}`),
            )
      }
    },
  }
}

/** The 503 of a refusal that a retry can get past (`retryAfter`); undefined for the others. */
export const retryLater = (refusal: ClaimRefused): PaymentOutcome | undefined =>
  refusal.retryAfter === undefined
    ? undefined
    : { type: 'error', status: 503, error: refusal.message, retryAfter: refusal.retryAfter }

/**
 * Pays (`pay`) holding the claim of `request`, or answers its refusal (`refuse`: nothing is charged). The claim is
 * released before the answer, so a corrected retry of a refused payment finds it free (PostgreSQL: its row deleted);
 * an ephemeral endpoint paid for stays claimed and is remembered as used up (its `pattern`).
 */
export async function payClaimed(
  locks: PaymentLocks,
  request: ClaimRequest & { pattern: CompiledPattern },
  pay: () => Promise<PaymentOutcome>,
  refuse: (refusal: ClaimRefused) => PaymentOutcome | Promise<PaymentOutcome>,
): Promise<PaymentOutcome> {
  const claiming = locks.claim(request)
  // SQLite's claims are synchronous: no await on its fast path.
  const claim = claiming instanceof Promise ? await claiming : claiming
  if (!claim.ok) return refuse(claim)
  let consumed = false
  try {
    const outcome = await pay()
    consumed = request.ephemeral !== undefined && outcome.type === 'paid'
    return outcome
  } finally {
    const released = claim.release(consumed)
    if (released) await released
    if (consumed) locks.consumed(request.ephemeral!.api_id, request.pattern)
  }
}

/**
 * What makes a payment one payment, whatever its encoding (key order, whitespace, extra fields of the header's JSON):
 * the network and asset it pays, the payer (`authorization.from`) and the authorization's nonce, hex compared
 * case-insensitively. A scheme payload without an EIP-3009 authorization is identified by its canonical JSON.
 */
export function paymentIdentity(payload: PaymentPayload, requirements: PaymentRequirements): string {
  const { from, nonce } = authorizationFields(payload.payload)
  const payment = from !== undefined && nonce !== undefined ? [from, nonce] : [canonicalJson(payload.payload)]
  return [requirements.network, requirements.asset, ...payment].map((part) => part.toLowerCase()).join('|')
}
