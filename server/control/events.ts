import { Router } from 'express'
import { z } from 'zod'
import { TooManyRequestsError } from '../../core/errors.js'
import { findOwnedApi } from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import type { PaymentEvents, StreamEvent } from '../payment-events.js'
import { parseQuery, queryId } from './analytics-query.js'
import { guard, principalOf } from './context.js'

export type EventStreamOptions = {
  /** A client whose unsent events pass this many bytes is disconnected (it may reconnect with Last-Event-ID). @defaultValue 1 MiB */
  maxBufferedBytes?: number | undefined
  /** How often a comment line keeps idle connections (and proxies) open. @defaultValue 15_000 */
  heartbeatMs?: number | undefined
  /** Streams one credential (an API key, or a seller's sessions) may hold open at once; one more is a 429. @defaultValue 16 */
  maxStreamsPerCredential?: number | undefined
}

/** Defaults of every stream; a test may lower them before it starts a server. */
export const eventStreamDefaults = { maxBufferedBytes: 1024 * 1024, heartbeatMs: 15_000, maxStreamsPerCredential: 16 }

const streamQuery = z.strictObject({ api_id: queryId().optional() })

/**
 * GET /events: the caller's payment events as Server-Sent Events, as they happen (server/payment-events.ts): the
 * seller's own APIs in the caller's environment, one API with `api_id`. API keys need settlements:read. Each event
 * is `id: evt_…`, `event: <type>`, `data: <JSON>`; a client that reconnects with `Last-Event-ID` first gets the
 * events it missed (of the last 1,000 svc kept). A slow client is never waited for: once more than
 * `maxBufferedBytes` of its events are unsent, it is disconnected. Each credential holds at most
 * `maxStreamsPerCredential` streams (each costs memory and a heartbeat): one more is answered 429 (issue 21.7).
 */
export function createEventRoutes(deps: ServerDeps, options: EventStreamOptions = {}): Router {
  const router = Router()
  /** Open streams per credential: an API key by its id, a seller's sessions together. */
  const open = new Map<string, number>()

  router.get('/events', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const { maxBufferedBytes, heartbeatMs, maxStreamsPerCredential } = { ...eventStreamDefaults, ...options }
    const query = parseQuery(streamQuery, req.query)
    const principal = principalOf(req)
    const credential = principal.keyId === undefined ? `user:${principal.user.id}` : `key:${principal.keyId}`
    const streams = open.get(credential) ?? 0
    if (streams >= maxStreamsPerCredential)
      throw new TooManyRequestsError(
        `too many event streams for this credential: ${streams} are open, the most is ${maxStreamsPerCredential}; close one first`,
        5,
      )
    const apiId = query.api_id === undefined ? undefined : (await findOwnedApi(deps.db, principal, query.api_id)).id
    const bus = deps.events as PaymentEvents
    // A whole-Sandbox event concerns every API of the environment, the one `api_id` names too.
    const shown = (event: StreamEvent) =>
      event.environment === principal.environment &&
      (apiId === undefined || !('api_id' in event) || event.api_id === apiId)

    if (req.socket.destroyed) return
    open.set(credential, streams + 1)
    res.status(200)
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8')
    res.setHeader('Cache-Control', 'no-store')
    res.setHeader('X-Accel-Buffering', 'no')
    res.flushHeaders()
    req.socket.setNoDelay(true)
    res.write('retry: 2000\n: connected\n\n')

    // Ids increase (and sort as strings): an event at or before the last one sent is not sent again.
    let lastSent = ''
    const send = (event: StreamEvent) => {
      if (!shown(event) || res.destroyed || event.id <= lastSent) return
      lastSent = event.id
      res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      if (res.writableLength > maxBufferedBytes) res.destroy()
    }
    const lastId = req.get('last-event-id')
    // While the missed events are read (from the database, on PostgreSQL), live ones wait behind them.
    let held: StreamEvent[] | undefined = lastId ? [] : undefined
    const live = (event: StreamEvent) => (held ? held.push(event) : send(event))
    const unsubscribePayments = bus.subscribe(principal.user.id, live)
    const unsubscribeSandbox = bus.subscribeSandbox(live)
    const unsubscribe = () => {
      unsubscribePayments()
      unsubscribeSandbox()
    }
    const heartbeat = setInterval(() => {
      if (!res.destroyed) res.write(': ping\n\n')
    }, heartbeatMs)
    heartbeat.unref()
    res.on('close', () => {
      const left = (open.get(credential) ?? 1) - 1
      if (left > 0) open.set(credential, left)
      else open.delete(credential)
      clearInterval(heartbeat)
      unsubscribe()
    })
    if (!lastId) return
    try {
      for (const missed of await bus.since(principal.user.id, lastId)) send(missed)
      for (const event of held ?? []) send(event)
      held = undefined
    } catch (error) {
      // The client reconnects with the same Last-Event-ID and is offered the missed events again.
      deps.log?.(`svc: replaying missed events failed: ${(error as Error).message}`)
      res.destroy()
    }
  })

  return router
}
