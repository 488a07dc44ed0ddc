import type Pg from 'pg'
import { sql, type Kysely } from 'kysely'

/** What a subscriber of a channel is told. */
export type NotificationHandlers = {
  /** A notification on the channel, with its payload ('' without one). */
  message(payload: string): void
  /** The connection broke: notifications sent from now until {@link reset} are lost. */
  lost?(): void
  /**
   * Listening again after a break: what the subscriber learnt from notifications may be stale (drop it, read again).
   * Called once LISTEN is in effect again, so a read made now misses nothing.
   */
  reset?(): void
}

export type Subscription = {
  /** Resolves once LISTEN is in effect (true), or false when the notifications were closed first. */
  ready: Promise<boolean>
  stop(): Promise<void>
}

/**
 * PostgreSQL's LISTEN/NOTIFY for one process: one connection of its own (beside the pool), opened at the first
 * subscription, that listens on every channel subscribed to. A lost connection is opened again (after 0.1 s, doubling
 * to 2 s) and listens again; then each subscriber's `reset` runs, since what was notified meanwhile is lost.
 */
export type Notifications = {
  subscribe(channel: string, handlers: NotificationHandlers | ((payload: string) => void)): Subscription
  /** True while the connection listens: no notification can be missed. */
  readonly listening: boolean
  /** The listening connection's backend process id (tests end it with pg_terminate_backend). */
  readonly backendPid: number | undefined
  close(): Promise<void>
}

/** A notification's payload must be shorter than 8,000 bytes (PostgreSQL's limit): this many at most. */
export const notifyPayloadLimit = 7_999

/** Sends `payload` on `channel` to every process listening (delivered when the statement's transaction commits). */
export async function notify(db: Kysely<any>, channel: string, payload: string): Promise<void> {
  if (Buffer.byteLength(payload) > notifyPayloadLimit)
    throw new Error(`a notification's payload is at most ${notifyPayloadLimit} bytes`)
  await sql`select pg_notify(${channel}, ${payload})`.execute(db)
}

const registry = new WeakMap<Kysely<any>, Notifications>()

/** The notifications of the PostgreSQL database `db` (server/db/postgres/database.ts), undefined on SQLite. */
export const notificationsOf = (db: Kysely<any>): Notifications | undefined => registry.get(db)

export function registerNotifications(db: Kysely<any>, notifications: Notifications): void {
  registry.set(db, notifications)
}

export type NotificationsOptions = {
  log?: ((message: string) => void) | undefined
  /** The first wait before opening a lost connection again (doubling to 2 s). @defaultValue 100 */
  retryMs?: number | undefined
}

/** Notifications over connections `connect` opens (a pg Client, connected). */
export function createNotifications(
  connect: () => Promise<Pg.Client>,
  options: NotificationsOptions = {},
): Notifications {
  const { log = (message: string) => console.error(message), retryMs = 100 } = options
  const channels = new Map<string, Set<NotificationHandlers>>()
  /** Subscriptions waiting for their LISTEN, and their channel. */
  const waiting = new Map<NotificationHandlers, { channel: string; resolve: (listening: boolean) => void }>()
  /** The channels the current connection listens on. */
  const listened = new Set<string>()
  let client: Pg.Client | undefined
  let connecting: Promise<void> | undefined
  let listening = false
  let closed = false
  let delay = retryMs
  let retry: NodeJS.Timeout | undefined

  const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`
  const guarded = (call: () => void) => {
    try {
      call()
    } catch (error) {
      log(`svc: a notification handler failed: ${(error as Error).message}`)
    }
  }
  const each = (visit: (handlers: NotificationHandlers) => void) => {
    for (const set of channels.values()) for (const handlers of set) guarded(() => visit(handlers))
  }

  /** The connection's LISTEN and UNLISTEN statements, one at a time (pg deprecates queries queued on a client). */
  let statements: Promise<unknown> = Promise.resolve()
  const inTurn = <T>(run: () => Promise<T>): Promise<T> => {
    const turn = statements.then(run, run)
    statements = turn.catch(() => {})
    return turn
  }
  /** Listens on every channel subscribed to (those added meanwhile too). */
  const listenAll = (current: Pg.Client) => inTurn(() => listenMissing(current))
  const listenMissing = async (current: Pg.Client) => {
    for (;;) {
      const missing = [...channels.keys()].filter((name) => !listened.has(name))
      if (missing.length === 0) return
      await current.query(missing.map((name) => `listen ${quote(name)}`).join('; '))
      if (client !== current) return
      for (const name of missing) listened.add(name)
    }
  }
  /** Resolves the subscriptions whose channel is listened on now. */
  const settleWaiting = () => {
    if (!listening) return
    for (const [handlers, { channel, resolve }] of waiting)
      if (listened.has(channel)) {
        waiting.delete(handlers)
        resolve(true)
      }
  }

  /** Opens the connection and listens on every channel; `again`: after a break, so subscribers reset. */
  const open = (again: boolean): Promise<void> =>
    (connecting ??= (async () => {
      const next = await connect()
      if (closed) {
        await next.end().catch(() => {})
        return
      }
      const broke = (error?: Error) => {
        if (client !== next) return
        client = undefined
        listening = false
        listened.clear()
        void next.end().catch(() => {})
        if (closed) return
        log(`svc: the database connection that listens for notifications broke (${error?.message ?? 'it ended'})`)
        each((handlers) => handlers.lost?.())
        schedule()
      }
      next.on('error', broke)
      next.on('end', () => broke())
      next.on('notification', (message) => {
        for (const handlers of channels.get(message.channel) ?? [])
          guarded(() => handlers.message(message.payload ?? ''))
      })
      client = next
      await listenAll(next)
      if (client !== next) throw new Error('the connection broke while it started listening')
      listening = true
      delay = retryMs
      if (again) each((handlers) => handlers.reset?.())
      settleWaiting()
    })().finally(() => {
      connecting = undefined
    }))

  /** Opens the connection again after `delay`, until it listens. */
  const schedule = () => {
    if (closed || retry) return
    retry = setTimeout(() => {
      retry = undefined
      open(true).catch((error: Error) => {
        log(`svc: listening for notifications failed (${error.message}); trying again`)
        delay = Math.min(delay * 2, 2_000)
        schedule()
      })
    }, delay)
    retry.unref()
  }

  return {
    get listening() {
      return listening
    },
    get backendPid() {
      return (client as { processID?: number } | undefined)?.processID ?? undefined
    },
    subscribe(channel, given) {
      const handlers = typeof given === 'function' ? { message: given } : given
      if (closed) return { ready: Promise.resolve(false), stop: async () => {} }
      let set = channels.get(channel)
      if (!set) channels.set(channel, (set = new Set()))
      set.add(handlers)
      const ready = new Promise<boolean>((resolve) => waiting.set(handlers, { channel, resolve }))
      // Listening already: LISTEN this channel too (a broken connection's successor listens on all of them).
      if (listening && client)
        void listenAll(client)
          .then(settleWaiting)
          .catch(() => {})
      else if (!connecting && !retry)
        open(false).catch((error: Error) => {
          log(`svc: listening for notifications failed (${error.message}); trying again`)
          schedule()
        })
      return {
        ready,
        async stop() {
          set.delete(handlers)
          waiting.get(handlers)?.resolve(false)
          waiting.delete(handlers)
          if (set.size > 0 || channels.get(channel) !== set) return
          channels.delete(channel)
          if (!listened.delete(channel)) return
          const current = client
          if (current) await inTurn(() => current.query(`unlisten ${quote(channel)}`)).catch(() => {})
        },
      }
    },
    async close() {
      closed = true
      listening = false
      clearTimeout(retry)
      for (const { resolve } of waiting.values()) resolve(false)
      waiting.clear()
      await connecting?.catch(() => {})
      const last = client
      client = undefined
      await last?.end().catch(() => {})
    },
  }
}
