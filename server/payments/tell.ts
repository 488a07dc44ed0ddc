/*
 * What the payment flow tells about the requests it serves: each one's events to the seller's live stream
 * (`createFlowEvents`, when the seller listens) and the API's daily counters (`createTrafficStats`).
 */
import type { PaymentRequirements } from '@x402/core/types'
import type { ApiRow, GatewayStore, TrafficRow } from '../db/index.js'
import type { PaymentsDeps } from './deps.js'
import type { PaymentEvent, PaymentEventType } from '../payment-events.js'
import { nowIso } from '../ids.js'

/** The request an event is about. */
export type EventSubject = {
  api: ApiRow
  endpointId: string | null
  method: string
  path: string
  requirements: PaymentRequirements | undefined
}

/** The fields of one event beyond its subject. */
export type EventDetails = Partial<
  Pick<PaymentEvent, 'payer' | 'transaction' | 'settlement_id' | 'reason' | 'error' | 'builder_code' | 'channel_id'>
> & {
  status: number
  /** What moved, when not the route's price (a channel's refund). */
  amount?: string | undefined
  /** The buyer was charged although the event is not payment.settled (upfront: the upstream failed after). */
  charged?: boolean
  /** An escrow payment's step (payment.authorized … payment.voided): the payment after it. */
  escrow?: PaymentEvent['escrow']
}

export type FlowEvents = {
  /** Whether the API's seller listens (one map lookup): the flow builds nothing otherwise. */
  wanted(api: ApiRow): boolean
  /** Publishes an event about `subject`, when its seller listens (otherwise nothing is built). */
  emit(type: PaymentEventType, subject: EventSubject, details: EventDetails): void
  /** Resolves once what was emitted is stored for every process (see PaymentEvents.published); at once in process. */
  published(): Promise<void> | undefined
}

/** The payment flow's side of the live stream (server/payment-events.ts): one cheap check per event when nobody listens. */
export function createFlowEvents(deps: Pick<PaymentsDeps, 'events'>): FlowEvents {
  const bus = deps.events
  return {
    wanted: (api) => bus?.wanted(api.user_id) ?? false,
    published: () => bus?.published?.(),
    emit(type, { api, endpointId, method, path, requirements }, details) {
      if (!bus?.wanted(api.user_id)) return
      bus.publish(api.user_id, {
        type,
        created_at: nowIso(),
        environment: api.environment,
        api_id: api.id,
        api_slug: api.slug,
        endpoint_id: endpointId,
        method,
        path,
        amount: details.amount ?? requirements?.amount ?? null,
        asset: requirements?.asset ?? null,
        network: requirements?.network ?? null,
        pay_to: requirements?.payTo ?? null,
        payer: details.payer ?? null,
        transaction: details.transaction ?? null,
        settlement_id: details.settlement_id ?? null,
        reason: details.reason ?? null,
        error: details.error ?? null,
        status: details.status,
        charged: type === 'payment.settled' || details.charged === true,
        builder_code: details.builder_code ?? null,
        channel_id: details.channel_id ?? null,
        escrow: details.escrow ?? null,
      })
    },
  }
}

export type TrafficCounter = 'requests' | 'payment_required' | 'paid_requests'

export type TrafficStats = {
  /** Counts one event of the API on today's (UTC) row. */
  count(api: ApiRow, counter: TrafficCounter): void
  /** Writes the counts gathered so far (upserts into `api_daily_stats`). */
  flush(): Promise<void>
  /** Flushes and stops the timer. */
  close(): Promise<void>
}

/** A UTC day, ms. */
const dayMs = 86_400_000

/**
 * Gateway traffic per API and UTC day, counted in memory and written at most every `flushEveryMs` (and on close),
 * so a request costs no write of its own. One upsert per API and day per flush adds the counts to the row.
 */
export function createTrafficStats(
  store: GatewayStore | Promise<GatewayStore>,
  options: { flushEveryMs?: number; log?: ((message: string) => void) | undefined } = {},
): TrafficStats {
  const { flushEveryMs = 250, log = () => {} } = options
  let pending = new Map<string, TrafficRow>()
  let timer: NodeJS.Timeout | undefined
  let flushing: Promise<void> = Promise.resolve()

  // Today (UTC), worked out again when the machine's clock leaves it: a Date and its ISO string per count cost more
  // than the count (two per unpaid 402).
  let today = ''
  let todayFrom = 0
  let todayUntil = 0
  function count(api: ApiRow, counter: TrafficCounter) {
    const now = Date.now()
    if (now >= todayUntil || now < todayFrom) {
      today = new Date(now).toISOString().slice(0, 10)
      todayFrom = now - (now % dayMs)
      todayUntil = todayFrom + dayMs
    }
    const day = today
    const key = `${api.id}|${day}`
    let row = pending.get(key)
    if (!row) {
      row = {
        api_id: api.id,
        user_id: api.user_id,
        environment: api.environment,
        day,
        requests: 0,
        payment_required: 0,
        paid_requests: 0,
      }
      pending.set(key, row)
    }
    row[counter]++
    timer ??= setTimeout(() => void flush(), flushEveryMs).unref()
  }

  function flush(): Promise<void> {
    clearTimeout(timer)
    timer = undefined
    const rows = [...pending.values()]
    pending = new Map()
    // Flushes run one after another, so counts are never written out of order.
    flushing = flushing
      .then(async () => (rows.length ? (await store).addTraffic(rows) : undefined))
      .catch((error: unknown) => log(`gateway: writing traffic stats failed: ${(error as Error).message}`))
    return flushing
  }

  return { count, flush, close: flush }
}
