import { sql, type Kysely } from 'kysely'
import { LRUCache } from 'lru-cache'
import { type Database, type Notifications, notifyPayloadLimit } from '../db/index.js'
import type { PaymentEvent, PaymentEvents, PaymentEventsOptions, SandboxEvent, StreamEvent } from '../payment-events.js'

/** The channels: events (`<id> <user> [<json>]`) and presence (`+users`, `-users`, `?`). */
export const eventChannel = 'svc_events'
export const listenerChannel = 'svc_listeners'

export type ClusterPaymentEventsOptions = PaymentEventsOptions & {
  /** How often a process says again whom it holds streams for; an announcement lasts 3 times this. @defaultValue 30_000 */
  announceEveryMs?: number | undefined
  log?: ((message: string) => void) | undefined
}

/** An event id: `evt_` and the cluster-wide number, 16 digits, so ids sort as strings too. */
export const clusterEventId = (id: number) => `evt_${String(id).padStart(16, '0')}`
const idNumber = (id: string) => (/^evt_\d{16}$/.test(id) ? Number(id.slice(4)) : 0)

/** The ring's user of a whole-Sandbox event (every seller's stream gets it). */
const everyone = '*'

/** Events published per statement at most. */
const batchSize = 200

/**
 * The live payment events of processes sharing a PostgreSQL database (server/payment-events.ts is the one-process
 * bus). A payment's event reaches the seller's streams on every process, once each, in one cluster-wide order:
 * - Presence: a process holding a seller's stream says so on `svc_listeners` (again every `announceEveryMs`, and when
 *   a process starting asks `?`); the others publish that seller's events until the announcement lapses, or
 *   `graceMs` after the last stream left (so a client that reconnects anywhere gets what it missed).
 * - Publishing: one statement, after the payment (never inside its transaction), takes the ids from
 *   `payment_event_counter` (its row lock holds until commit: ids commit in order, with no hole), keeps the events in
 *   `payment_events` (the replay ring: the last `keep`) and notifies each on `svc_events` with its JSON, or only its id
 *   when the JSON would pass PostgreSQL's 8,000-byte limit (the listener reads it from the ring).
 * - Receiving: each process hands the events to its streams strictly by id. A missing id (a lost notification) is
 *   read from the ring; after the listening connection broke, everything after the last id handed out is.
 */
export function createClusterPaymentEvents(
  db: Kysely<Database>,
  notifications: Notifications,
  options: ClusterPaymentEventsOptions = {},
): PaymentEvents & { close(): Promise<void> } {
  const { keep = 1000, graceMs = 60_000, announceEveryMs = 30_000, log = () => {} } = options
  const listeners = new Map<string, Set<(event: PaymentEvent) => void>>()
  const leftRecently = new LRUCache<string, true>({ max: 10_000, ttl: graceMs })
  const sandboxListeners = new Set<(event: SandboxEvent) => void>()
  /** Sellers whose streams other processes (and this one) announced, until when (this machine's clock). */
  const announced = new Map<string, number>()
  const fail = (what: string) => (error: unknown) => log(`svc: ${what} failed: ${(error as Error).message}`)

  // Presence.
  const say = (sign: '+' | '-', users: string[]) => {
    const chunks: string[] = []
    let chunk = sign
    for (const user of users) {
      if (chunk.length + user.length + 1 > notifyPayloadLimit) {
        chunks.push(chunk)
        chunk = sign
      }
      chunk += chunk.length === 1 ? user : ` ${user}`
    }
    if (chunk.length > 1) chunks.push(chunk)
    for (const payload of chunks)
      void sql`select pg_notify(${listenerChannel}, ${payload})`.execute(db).catch(fail('announcing a stream'))
  }
  const announceAll = () => say('+', [...listeners.keys()])
  /** Asks every process to say whom it holds streams for (a process starting, or one that may have missed some). */
  const ask = () => void sql`select pg_notify(${listenerChannel}, '?')`.execute(db).catch(fail('asking for streams'))
  const presence = notifications.subscribe(listenerChannel, {
    message(payload) {
      if (payload === '?') return announceAll()
      const until = Date.now() + (payload[0] === '+' ? 3 * announceEveryMs : graceMs)
      for (const user of payload.slice(1).split(' ')) if (user) announced.set(user, until)
    },
    reset: ask,
  })
  void presence.ready.then((listening) => listening && ask())
  const timer = setInterval(() => {
    announceAll()
    const now = Date.now()
    for (const [user, until] of announced) if (until <= now) announced.delete(user)
  }, announceEveryMs)
  timer.unref()

  // Receiving, by id.
  type Entry = { userId: string; json?: string | undefined }
  const pending = new Map<number, Entry>()
  /** The id handed out next; undefined until the counter was read after LISTEN. */
  let next: number | undefined
  let draining: Promise<void> | undefined
  /** Reads the ring from `from` on (up to `to`) into `pending`; ids it lacks (trimmed) are skipped. */
  const readRing = async (from: number, to?: number) => {
    let query = db.selectFrom('payment_events').select(['id', 'user_id', 'event']).where('id', '>=', from)
    if (to !== undefined) query = query.where('id', '<=', to)
    const rows = await query.orderBy('id').execute()
    for (const row of rows) pending.set(Number(row.id), { userId: row.user_id, json: row.event })
    return rows.length > 0 ? Number(rows[rows.length - 1]!.id) : undefined
  }
  const hand = (id: number, entry: Entry) => {
    if (entry.json === undefined) return
    if (entry.userId === everyone) {
      if (sandboxListeners.size === 0) return
      const event = { id: clusterEventId(id), ...JSON.parse(entry.json) } as SandboxEvent
      for (const listener of sandboxListeners) listener(event)
      return
    }
    const set = listeners.get(entry.userId)
    if (!set) return
    const event = { id: clusterEventId(id), ...JSON.parse(entry.json) } as PaymentEvent
    for (const listener of set) listener(event)
  }
  const drainOnce = async () => {
    while (next !== undefined) {
      for (const id of pending.keys()) if (id < next) pending.delete(id)
      const entry = pending.get(next)
      if (entry && entry.json !== undefined) {
        pending.delete(next)
        hand(next++, entry)
        continue
      }
      if (pending.size === 0) return
      // Only the id was notified (too large), or ids are missing (a notification lost): read them from the ring.
      const upTo = Math.max(...pending.keys())
      await readRing(next, upTo)
      const current = next
      if (!pending.get(current) || pending.get(current)?.json === undefined) {
        pending.delete(current)
        next = current + 1
      }
    }
  }
  const drain = () => {
    draining ??= drainOnce()
      .catch(fail('reading payment events'))
      .finally(() => {
        draining = undefined
        if (next !== undefined && pending.has(next)) drain()
      })
    return draining
  }
  const events = notifications.subscribe(eventChannel, {
    message(payload) {
      const [id, userId, ...rest] = payload.split(' ')
      pending.set(Number(id), { userId: userId!, json: rest.length > 0 ? rest.join(' ') : undefined })
      void drain()
    },
    // Notifications were lost meanwhile: what the ring holds after the last id handed out comes first.
    reset() {
      if (next === undefined) return
      void readRing(next)
        .then(() => drain())
        .catch(fail('reading payment events'))
    },
  })
  // Events committed before this process listened are not handed out live (a stream replays them from the ring).
  void events.ready
    .then(async (listening) => {
      if (!listening) return
      const row = await db.selectFrom('payment_event_counter').select('last').where('id', '=', 1).executeTakeFirst()
      next = Number(row?.last ?? 0) + 1
      void drain()
    })
    .catch(fail('reading the payment event counter'))

  // Publishing, in order, in batches.
  let queue: { userId: string; json: string }[] = []
  let publishing: Promise<void> | undefined
  const publishAll = async () => {
    while (queue.length > 0) {
      // A statement does not see the rows it inserts: a batch past `keep` would leave some of its own untrimmed.
      const batch = queue.slice(0, Math.min(batchSize, keep))
      queue = queue.slice(batch.length)
      await sql`
        with counter as (
          update payment_event_counter set last = last + ${batch.length} where id = 1 returning last
        ), batch as (
          select (select last from counter) - ${batch.length} + t.ord as id, t.user_id, t.event
          from unnest(${batch.map((e) => e.userId)}::text[], ${batch.map((e) => e.json)}::text[])
            with ordinality as t(user_id, event, ord)
        ), kept as (
          insert into payment_events (id, user_id, event) select id, user_id, event from batch
        ), trimmed as (
          delete from payment_events where id <= (select last from counter) - ${keep}
            and (select last from counter) / 100 <> ((select last from counter) - ${batch.length}) / 100
        )
        select pg_notify(${eventChannel}, case
          when octet_length(id::text) + octet_length(user_id) + octet_length(event) + 2 <= ${notifyPayloadLimit}
          then id || ' ' || user_id || ' ' || event else id || ' ' || user_id end)
        from batch`
        .execute(db)
        .catch(fail('publishing payment events'))
    }
  }

  const enqueue = (userId: string, fields: object) => {
    queue.push({ userId, json: JSON.stringify(fields) })
    publishing ??= publishAll().finally(() => {
      publishing = undefined
    })
  }

  return {
    wanted(userId) {
      return listeners.has(userId) || leftRecently.has(userId) || (announced.get(userId) ?? 0) > Date.now()
    },
    publish(userId, fields) {
      enqueue(userId, fields)
    },
    published() {
      return publishing ?? Promise.resolve()
    },
    broadcast(fields) {
      // Rare and meant for everyone: published whether or not anyone listens.
      enqueue(everyone, { created_at: new Date().toISOString(), environment: 'development', ...fields })
    },
    subscribeSandbox(listener) {
      sandboxListeners.add(listener)
      return () => void sandboxListeners.delete(listener)
    },
    subscribe(userId, listener) {
      let set = listeners.get(userId)
      if (!set) {
        listeners.set(userId, (set = new Set()))
        say('+', [userId])
      }
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0 && listeners.get(userId) === set) {
          listeners.delete(userId)
          leftRecently.set(userId, true)
          say('-', [userId])
        }
      }
    },
    async since(userId, lastId) {
      const rows = await db
        .selectFrom('payment_events')
        .select(['id', 'event'])
        .where('user_id', 'in', [userId, everyone])
        .where('id', '>', idNumber(lastId))
        .orderBy('id')
        .execute()
      return rows.map((row) => ({ id: clusterEventId(Number(row.id)), ...JSON.parse(row.event) }) as StreamEvent)
    },
    async close() {
      clearInterval(timer)
      await publishing
      await Promise.all([presence.stop(), events.stop()])
      await draining
    },
  }
}
