import { LRUCache } from 'lru-cache'
import type { Environment } from '../core/hosts.js'

/** What happened to a paid request, as the live stream (`GET /events`, `svc listen`) tells it. */
export type PaymentEventType =
  | 'payment.required'
  | 'payment.verified'
  | 'payment.settled'
  | 'payment.failed'
  | 'upstream.failed'
  /** A payment channel's (x402 batch-settlement) transactions: one event per channel, no request behind them. */
  | 'channel.claimed'
  | 'channel.settled'
  | 'channel.refunded'
  /** The buyer's own exit (initiateWithdraw, then finalizeWithdraw after the withdraw delay), read from the chain. */
  | 'channel.withdrawing'
  | 'channel.withdrawn'
  /**
   * An escrow payment's (x402 auth-capture) steps: the hold (before the upstream is called), a capture (or the
   * authorization flow's terminal charge), a void, a refund, the buyer's reclaim after the capture deadline.
   */
  | 'payment.authorized'
  | 'payment.captured'
  | 'payment.voided'
  | 'payment.refunded'
  | 'payment.reclaimed'

/** The escrow states a payment.authorized … payment.reclaimed event reports (as `GET /payments`). */
export type EscrowPaymentState = 'authorized' | 'captured' | 'charged' | 'voided' | 'refunded' | 'reclaimed'

/** An escrow event's own part: the payment, its state after the step, what the step moved, and its totals. */
export type PaymentEventEscrow = {
  /** `esc_…`. */
  id: string
  payment_info_hash: string
  state: EscrowPaymentState
  /** What this step moved (atomic units of `asset`). */
  moved: string
  /** The payment's captured and refunded totals after the step. */
  captured: string
  refunded: string
}

/** One event, in the control plane's snake_case. Fields that do not apply to the type are null. */
export type PaymentEvent = {
  /** `evt_…`, increasing: the SSE `id`, for `Last-Event-ID`. */
  id: string
  type: PaymentEventType
  created_at: string
  environment: Environment
  api_id: string
  api_slug: string
  endpoint_id: string | null
  method: string
  path: string
  /** What the route asks (atomic units of `asset`). */
  amount: string | null
  asset: string | null
  network: string | null
  pay_to: string | null
  payer: string | null
  /** payment.settled: the settlement's transaction and record. */
  transaction: string | null
  settlement_id: string | null
  /** payment.failed: the x402 reason, when the facilitator gave one. */
  reason: string | null
  /** payment.failed, upstream.failed: what the buyer was told. */
  error: string | null
  /** The HTTP status the buyer got. */
  status: number
  /** Whether the buyer was charged (payment.settled, and upstream.failed after an upfront settlement). */
  charged: boolean
  /** payment.settled: the payment's builder-code attribution (ERC-8021 `a`, `w`, `s`), null without one. */
  builder_code: { a?: string; w?: string; s?: string[] } | null
  /** A payment channel's id (lowercase): a batch-settlement payment.settled and the channel.* events. */
  channel_id: string | null
  /**
   * The escrow part of payment.authorized … payment.reclaimed; null (or left out, until every publisher writes it)
   * on the other events. Seller- and payer-made ones carry the paid request's method and path, status 200, and
   * `charged` = captured > 0.
   */
  escrow?: PaymentEventEscrow | null
}

/** What changed the whole Sandbox (every seller's APIs), told to every seller's stream. */
export type SandboxEventType =
  | 'sandbox.reverted'
  | 'sandbox.time_advanced'
  | 'sandbox.time_reset'
  | 'sandbox.chain_restarted'

/**
 * A whole-Sandbox change, and who made it: `admin` (svc serve's admin token) or `local` (a caller on svc up's
 * machine). On a shared Sandbox every tenant's stream says so, since it acts on all of them.
 */
export type SandboxEvent = {
  id: string
  type: SandboxEventType
  created_at: string
  environment: 'development'
  actor: 'admin' | 'local'
  /** sandbox.reverted: the snapshot reverted to. */
  snapshot_id: string | null
  /** sandbox.time_advanced: by how many seconds. */
  seconds: number | null
}

/** What `GET /events` streams: a seller's payment events and the Sandbox's own. */
export type StreamEvent = PaymentEvent | SandboxEvent

export type PaymentEvents = {
  /**
   * Whether events of the seller `userId` are wanted: someone listens, or listened less than a minute ago (so a
   * client that reconnects gets what it missed). The gateway builds no event otherwise.
   */
  wanted(userId: string): boolean
  /** Hands `event` to the seller's listeners (synchronously; each buffers on its own) and keeps it for replays. */
  publish(userId: string, event: Omit<PaymentEvent, 'id'>): void
  /** Calls `listener` with every event of the seller from now on. @returns the function that stops it */
  subscribe(userId: string, listener: (event: PaymentEvent) => void): () => void
  /** The seller's kept events after `lastId` (oldest first); all kept ones when `lastId` is not kept any more. */
  since(userId: string, lastId: string): StreamEvent[] | Promise<StreamEvent[]>
  /** Hands a whole-Sandbox `event` to every listener of every seller, and keeps it for everyone's replays. */
  broadcast(event: Omit<SandboxEvent, 'id' | 'created_at' | 'environment'>): void
  /** Calls `listener` with every whole-Sandbox event from now on. @returns the function that stops it */
  subscribeSandbox(listener: (event: SandboxEvent) => void): () => void
  /**
   * Resolves once every event handed over so far is stored for every process (PostgreSQL: in the shared ring); the
   * gateway waits for it before a paid answer, so a process killed after answering has not lost that payment's event.
   * Absent where publishing is synchronous (in process).
   */
  published?(): Promise<void>
  /** Stops what the bus runs (PostgreSQL: its subscriptions and timer), once what it publishes was sent. */
  close?(): Promise<void>
}

export type PaymentEventsOptions = {
  /** Events kept for replays (`Last-Event-ID`), all sellers together. @defaultValue 1000 */
  keep?: number | undefined
  /** How long events are still built after a seller's last listener left. @defaultValue 60_000 */
  graceMs?: number | undefined
}

/**
 * The in-process bus of payment events: the gateway publishes, the control plane's stream subscribes. Nothing is
 * written anywhere; events are built only while a seller listens (see {@link PaymentEvents.wanted}). Processes that
 * share a PostgreSQL database use server/cluster/payment-events.ts instead.
 */
export function createPaymentEvents(options: PaymentEventsOptions = {}): PaymentEvents {
  const { keep = 1000, graceMs = 60_000 } = options
  const listeners = new Map<string, Set<(event: PaymentEvent) => void>>()
  // Sellers whose last listener left less than graceMs ago (lru-cache's ttl; the bound only matters for a flood of them).
  const leftRecently = new LRUCache<string, true>({ max: 10_000, ttl: graceMs })
  const sandboxListeners = new Set<(event: SandboxEvent) => void>()
  // A broadcast is kept under `*`: every seller's replay has it.
  const kept: { userId: string; event: StreamEvent }[] = []
  // Ids sort in the order events happened: a per-process prefix and a counter.
  const prefix = `evt_${Date.now().toString(36)}`
  let counter = 0

  return {
    wanted(userId) {
      return listeners.has(userId) || leftRecently.has(userId)
    },
    publish(userId, fields) {
      const event = { id: `${prefix}_${(++counter).toString().padStart(9, '0')}`, ...fields } as PaymentEvent
      kept.push({ userId, event })
      if (kept.length > keep) kept.shift()
      for (const listener of listeners.get(userId) ?? []) listener(event)
    },
    subscribe(userId, listener) {
      let set = listeners.get(userId)
      if (!set) listeners.set(userId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0 && listeners.get(userId) === set) {
          listeners.delete(userId)
          leftRecently.set(userId, true)
        }
      }
    },
    since(userId, lastId) {
      const at = kept.findIndex((entry) => entry.event.id === lastId)
      return kept
        .slice(at + 1)
        .filter((entry) => entry.userId === userId || entry.userId === '*')
        .map((entry) => entry.event)
    },
    broadcast(fields) {
      const event: SandboxEvent = {
        id: `${prefix}_${(++counter).toString().padStart(9, '0')}`,
        created_at: new Date().toISOString(),
        environment: 'development',
        ...fields,
      }
      kept.push({ userId: '*', event })
      if (kept.length > keep) kept.shift()
      for (const listener of sandboxListeners) listener(event)
    },
    subscribeSandbox(listener) {
      sandboxListeners.add(listener)
      return () => void sandboxListeners.delete(listener)
    },
  }
}
