import type { Request, Response } from 'express'
import type { x402ResourceServer } from '@x402/core/server'
import { encodePaymentResponseHeader } from '@x402/core/http'
import { SettleError, VerifyError, type PaymentPayload, type PaymentRequirements, type SettleResponse, type VerifyResponse } from '@x402/core/types'
import { findMatch } from '../../core/path-pattern.js'
import type { ApiRow } from '../db/tables.js'
import type { ServerDeps } from '../deps.js'
import { createEndpointTable, type GatewayRoute } from './endpoint-table.js'
import { openGatewayStore, type GatewayStore } from './gateway-store.js'
import { offerFor, paymentRequired, type Offer } from './payment-required.js'
import { createPaymentLocks, decodePayment } from './payment-locks.js'
import { createResourceServers } from './resource-servers.js'
import { normalizePath } from './request-path.js'
import { recordSettlement } from './settlement-record.js'
import { createTrafficStats } from './traffic-stats.js'
import { createUpstreamProxy, upstreamTarget, type UpstreamProxyOptions, type UpstreamResponse } from './upstream-proxy.js'

export type PaidRouteHandler = {
  /** Serves one gateway request for `api`: match, 402 / verify → proxy → settle. */
  handle(req: Request, res: Response, api: ApiRow): Promise<void>
  /** Writes the buffered traffic counters now (tests; otherwise every 250 ms and on close). */
  flush(): Promise<void>
  /** Releases timers, pending writes and upstream connections (server stop). */
  close(): Promise<void>
}

export type PaidRouteOptions = UpstreamProxyOptions & {
  /** How often buffered traffic counters are written. @defaultValue 250 */
  statsFlushEveryMs?: number | undefined
  /** The gateway's store, shared with its API cache; the handler does not close it. @defaultValue a store of its own */
  store?: Promise<GatewayStore> | undefined
}

/** Defaults of every paid-route handler; a test may lower them before it starts a server. */
export const paidRouteDefaults = { timeoutMs: 30_000, maxResponseBytes: 10 * 1024 * 1024, statsFlushEveryMs: 250 }

type Paid = { req: Request; res: Response; api: ApiRow; route: GatewayRoute; server: x402ResourceServer; offer: Offer; resource: Resource }
type Resource = { url: string; path: string; query: string; description: string }

/**
 * The paid routes of the gateway. Only priced routes are served: a request no enabled, unexpired endpoint matches is
 * a 404, never forwarded for free, so a seller cannot leak an upstream route by forgetting to price it.
 *
 * A paid request is verified, forwarded (request body streamed), and settled only when the upstream answered below
 * 400. The upstream's answer is held (up to `maxResponseBytes`) until the settlement is done and recorded: the
 * buyer gets the body only if the payment settled, and a failed settlement delivers nothing.
 */
export function createPaidRouteHandler(deps: ServerDeps, options: PaidRouteOptions = {}): PaidRouteHandler {
  const settings = { ...paidRouteDefaults, ...options }
  const store = options.store ?? openGatewayStore(deps.db)
  const table = createEndpointTable(deps.db)
  const servers = createResourceServers(deps)
  const proxy = createUpstreamProxy(settings)
  const stats = createTrafficStats(store, { flushEveryMs: settings.statsFlushEveryMs, log: deps.log })
  const locks = createPaymentLocks()

  async function handle(req: Request, res: Response, api: ApiRow): Promise<void> {
    stats.count(api, 'requests')
    const url = req.originalUrl || req.url
    const queryAt = url.indexOf('?')
    const path = normalizePath(queryAt === -1 ? url : url.slice(0, queryAt))
    if (path === undefined) return void sendError(res, 400, 'malformed request path')
    const route = findMatch(await table.routesOf(api, await (await store).version()), req.method, path)
    if (!route) {
      const gone = locks.wasConsumed(api.id, req.method, path)
      return void sendError(res, gone ? 410 : 404, gone ? 'this one-time endpoint was used up by an earlier payment' : `no paid route for ${req.method} ${path}`)
    }
    // A missing facilitator (no chain, no SVC_FACILITATOR_URL) throws a 503 for the error handler.
    const server = await servers.forApi(api)
    const offer = await offerFor(route, server, api)
    const resource = {
      url: `${req.protocol}://${req.headers.host}${url}`,
      path,
      query: queryAt === -1 ? '' : url.slice(queryAt),
      description: route.endpoint.description ?? `${route.endpoint.method} ${route.endpoint.path_pattern} of ${api.name}`,
    }
    const paid: Paid = { req, res, api, route, server, offer, resource }

    const header = req.headers['payment-signature']
    if (typeof header !== 'string') {
      if (req.headers['x-payment'] !== undefined) return void (await requirePayment(paid, 'svc speaks x402 v2 only: send the payment in PAYMENT-SIGNATURE, not X-PAYMENT'))
      return void (await requirePayment(paid))
    }
    const decoded = decodePayment(header)
    if (typeof decoded === 'string') return void (await requirePayment(paid, decoded))
    let requirements: PaymentRequirements | undefined
    try {
      requirements = server.findMatchingRequirements(offer.requirements, decoded)
    } catch {
      requirements = undefined
    }
    if (!requirements)
      return void (await requirePayment(paid, 'the payment matches none of the accepted payment options of this route: fetch a fresh 402 and pay one of its accepts'))

    // One request per payment, and one paying request per ephemeral endpoint at a time: the others are not charged.
    const release = locks.claim(header, route.expiresAt === null ? undefined : route.endpoint.id)
    if (typeof release === 'string') return void (await requirePayment(paid, release))
    let consumed = false
    try {
      consumed = await pay(paid, decoded, requirements)
    } finally {
      release(consumed)
      if (consumed) locks.consumed(api.id, route.compiled)
    }
  }

  /** Verify → forward → settle → record → answer. True when an ephemeral endpoint was used up. */
  async function pay(paid: Paid, payload: PaymentPayload, requirements: PaymentRequirements): Promise<boolean> {
    const { req, res, api, route, server, resource } = paid
    let verified: VerifyResponse
    try {
      verified = await server.verifyPayment(payload, requirements)
    } catch (error) {
      if (!(error instanceof VerifyError)) return sendError(res, 502, `the facilitator could not verify the payment: ${(error as Error).message}`)
      verified = { isValid: false, invalidReason: error.invalidReason, invalidMessage: error.invalidMessage }
    }
    if (!verified.isValid) return requirePayment(paid, reasonText('the payment is invalid', verified.invalidReason, verified.invalidMessage))

    const buyerGone = new AbortController()
    res.once('close', () => buyerGone.abort())
    const answer = await proxy.forward(req, upstreamTarget(api.upstream_base_url, resource.path, resource.query), buyerGone.signal)
    if (!answer.ok) return sendError(res, answer.status, `${answer.error}; the payment was not settled`)
    if (answer.status >= 500) {
      answer.body.resume()
      answer.done()
      return sendError(res, 502, `the upstream answered ${answer.status}; the payment was not settled`)
    }
    if (answer.status >= 400) return passThrough(res, answer)

    const body = await answer.read()
    if (!Buffer.isBuffer(body)) return sendError(res, body.status, `${body.error}; the payment was not settled`)
    // The buyer left before the answer was ready: nothing is delivered, so nothing is charged.
    if (buyerGone.signal.aborted) return false

    let settled: SettleResponse
    try {
      settled = await server.settlePayment(payload, requirements)
    } catch (error) {
      if (!(error instanceof SettleError)) return sendError(res, 502, `the facilitator could not settle the payment: ${(error as Error).message}`)
      settled = { success: false, errorReason: error.errorReason, errorMessage: error.errorMessage, transaction: '', network: requirements.network }
    }
    if (!settled.success) return requirePayment(paid, reasonText('the payment could not be settled', settled.errorReason, settled.errorMessage))

    const ephemeral = route.expiresAt !== null
    const recorded = await recordSettlement(await store, {
      api,
      endpoint: route.endpoint,
      ephemeral,
      requirements,
      settled,
      payer: settled.payer ?? verified.payer ?? '',
      method: req.method,
      path: resource.path,
    })
    // The facilitator answers a payload it already settled with the same transaction: that is a replay.
    if (!recorded) return requirePayment(paid, 'this payment was already used for an earlier request')
    stats.count(api, 'paid_requests')

    const headers: Record<string, string | string[]> = { ...answer.headers, 'payment-response': encodePaymentResponseHeader(settled) }
    if (req.method !== 'HEAD') headers['content-length'] = String(body.length)
    res.writeHead(answer.status, headers).end(body)
    return ephemeral
  }

  /** A 402 with the PaymentRequired (header and body), `error` saying why; false: nothing was consumed. */
  async function requirePayment(paid: Paid, error?: string): Promise<false> {
    const encoded = await paymentRequired(paid.server, paid.route, paid.offer, paid.resource, error)
    stats.count(paid.api, 'payment_required')
    paid.res
      .writeHead(402, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'payment-required': encoded.header })
      .end(encoded.body)
    return false
  }

  return {
    handle,
    flush: () => stats.flush(),
    async close() {
      await stats.close()
      await proxy.close()
      if (!options.store) (await store).close()
    },
  }
}

/** An upstream 4xx goes to the buyer as it is, streamed; nothing is settled. */
function passThrough(res: Response, answer: UpstreamResponse): false {
  res.writeHead(answer.status, answer.headers)
  answer.body.on('error', () => res.destroy())
  answer.body.on('end', () => answer.done())
  answer.body.pipe(res)
  return false
}

/** Answers `{"error"}`; returns false, the "not consumed" outcome of a payment attempt. */
function sendError(res: Response, status: number, error: string): false {
  if (res.headersSent) res.destroy()
  else res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify({ error }))
  return false
}

function reasonText(what: string, reason: string | undefined, message: string | undefined): string {
  return `${what}: ${reason ?? 'unknown reason'}${message && message !== reason ? ` (${message})` : ''}`
}
