import { Router } from 'express'
import { z } from 'zod'
import { findOwnedApi } from '../db/apis.js'
import type { ServerDeps } from '../deps.js'
import type { PaymentEvent, PaymentEvents } from '../payment-events.js'
import { parseQuery, queryId } from './analytics-query.js'
import { guard, principalOf } from './context.js'

export type EventStreamOptions = {
  /** A client whose unsent events pass this many bytes is disconnected (it may reconnect with Last-Event-ID). @defaultValue 1 MiB */
  maxBufferedBytes?: number | undefined
  /** How often a comment line keeps idle connections (and proxies) open. @defaultValue 15_000 */
  heartbeatMs?: number | undefined
}

/** Defaults of every stream; a test may lower them before it starts a server. */
export const eventStreamDefaults = { maxBufferedBytes: 1024 * 1024, heartbeatMs: 15_000 }

const streamQuery = z.strictObject({ api_id: queryId().optional() })

/**
 * GET /events: the caller's payment events as Server-Sent Events, as they happen (server/payment-events.ts): the
 * seller's own APIs in the caller's environment, one API with `api_id`. API keys need settlements:read. Each event
 * is `id: evt_…`, `event: <type>`, `data: <JSON>`; a client that reconnects with `Last-Event-ID` first gets the
 * events it missed (of the last 1,000 svc kept). A slow client is never waited for: once more than
 * `maxBufferedBytes` of its events are unsent, it is disconnected.
 */
export function createEventRoutes(deps: ServerDeps, options: EventStreamOptions = {}): Router {
  const router = Router()

  router.get('/events', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const { maxBufferedBytes, heartbeatMs } = { ...eventStreamDefaults, ...options }
    const query = parseQuery(streamQuery, req.query)
    const principal = principalOf(req)
    const apiId = query.api_id === undefined ? undefined : (await findOwnedApi(deps.db, principal, query.api_id)).id
    const bus = deps.events as PaymentEvents
    const shown = (event: PaymentEvent) =>
      event.environment === principal.environment && (apiId === undefined || event.api_id === apiId)

    res.status(200)
    res.setHeader('Content-Type', 'text/event-stream; charset=utf-8')
    res.setHeader('Cache-Control', 'no-store')
    res.setHeader('X-Accel-Buffering', 'no')
    res.flushHeaders()
    req.socket.setNoDelay(true)
    res.write('retry: 2000\n: connected\n\n')

    const send = (event: PaymentEvent) => {
      if (!shown(event) || res.destroyed) return
      res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
      if (res.writableLength > maxBufferedBytes) res.destroy()
    }
    const lastId = req.get('last-event-id')
    const unsubscribe = bus.subscribe(principal.user.id, send)
    if (lastId) for (const missed of bus.since(principal.user.id, lastId)) send(missed)
    const heartbeat = setInterval(() => {
      if (!res.destroyed) res.write(': ping\n\n')
    }, heartbeatMs)
    heartbeat.unref()
    res.on('close', () => {
      clearInterval(heartbeat)
      unsubscribe()
    })
  })

  return router
}
