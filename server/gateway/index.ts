import type { Request, Response } from 'express'
import type { ServerDeps } from '../deps.js'
import type { HostRoute } from '../../core/hosts.js'
import { createApiPage } from './api-page/api-page.js'
import { serveTryIt, tryItPath } from './api-page/try-it-route.js'
import { createDiscoveryHandlers } from './discovery-documents.js'
import type { ApiRow, GatewayStore } from '../db/index.js'
import { createPaymentFlow } from './payment-flow.js'
import { notServedMessage, resolveGatewayApi } from './resolve.js'
import { createPaywallOwnRoutes, ownRoutesPrefix } from './paywall/own-routes.js'
import { createPaywallPage } from './paywall/paywall-page.js'
import { LRUCache } from 'lru-cache'
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { GatewayRequest } from '../upstream/index.js'
import type { PaymentOutcome, PaymentRequiredOutcome } from '../payments/index.js'
import { isBrowserRequest } from './paywall/browser-request.js'

export type Gateway = {
  handle(req: Request, res: Response, route: HostRoute): Promise<void>
  /**
   * The 402 of a request to a gateway host, without express, when it is an unpaid request whose 402 is known already
   * (the payment flow's `unpaid`: the same 402, counted and told as {@link handle} would); write it with
   * {@link writeKnown402}. Undefined, having counted nothing, for anything else: handle() answers it. `protocol`:
   * express's `req.protocol` of the request (server/app.ts works it out).
   */
  unpaid(
    req: IncomingMessage,
    res: ServerResponse,
    route: HostRoute,
    protocol: string,
  ): PaymentRequiredOutcome | undefined
  /** Starts the payment channels' managers of every batch-settlement receiver (the server's start). */
  startChannelManagers(): Promise<void>
  close(): Promise<void>
}

/**
 * The gateway: the API of the Host, its public discovery documents, and its paid routes. `store` is its own access to
 * the database (server/db/sqlite/gateway-store.ts: the version that keeps the API and endpoint caches current, and the
 * bookkeeping of payments); the gateway closes it.
 */
export function createGateway(deps: ServerDeps, store: GatewayStore): Gateway {
  const discovery = createDiscoveryHandlers(deps)
  const apiPage = createApiPage(deps)
  const apis = createApiCache(deps)
  const flow = createPaymentFlow(deps, store, deps.paidRoutes)
  const paywallRoutes = createPaywallOwnRoutes(deps)
  const paywall = createPaywallPage(deps)
  return {
    async handle(req, res, route) {
      // A request that pays passes the Sandbox's gate before it reads anything: a revert to a snapshot waits for the
      // payments under way and holds new ones back until it is done (they then read the reverted state).
      const leave = req.headers['payment-signature'] === undefined ? undefined : await deps.sandboxState?.enterPayment()
      try {
        await serve(req, res, route)
      } finally {
        leave?.()
      }
    },
    unpaid(req, res, route, protocol) {
      // What serve() answers before the payment flow (discovery documents, the API page, svc's own routes) and what
      // it answers otherwise (a browser's paywall page) goes its way.
      if (!unpaidFlowPath(req.url!) || isBrowserRequest(req.headers)) return undefined
      // Known without a query, or express's path asks (a version read here would be a promise left to no one: a
      // database away rejects it, and PostgreSQL's read-your-writes flag would be spent on it).
      const version = store.known ? store.known() : store.version()
      if (typeof version !== 'number') return undefined
      const api = apis.peek(route, version)
      if (!api) return undefined
      try {
        return flow.unpaid(new PlainGatewayRequest(req, res, protocol), api, version)
      } catch {
        // A facilitator that cannot be used now: handle() answers its 503 through the app's error handler.
        return undefined
      }
    },
    startChannelManagers: () => flow.startChannelManagers(),
    async close() {
      await flow.close()
      store.close()
    },
  }

  /**
   * Serves a gateway request: the API of the Host, its discovery documents, its page, svc's paywall routes, or the
   * paid flow (whose unpaid 402 is the paywall page for a browser).
   */
  async function serve(req: Request, res: Response, route: HostRoute): Promise<void> {
    // On a database file its version is read without waiting (a number).
    const current = store.version()
    let version = typeof current === 'number' ? current : await current
    let api = await apis.resolve(route, version)
    // Before a 404, a version that may lag behind another process's write is read anew (read-your-writes).
    if (!api && store.fresh) {
      const fresh = await store.fresh()
      if (fresh !== version) api = await apis.resolve(route, (version = fresh))
    }
    if (!api) {
      const error = await notServedMessage(deps, route, (other) => apis.resolve(other, version), req.baseUrl !== '')
      res.status(404).json({ error })
      return
    }
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (req.path === '/openapi.json') return discovery.openapi(req, res, api)
      if (req.path === '/.well-known/x402.json' || req.path === '/.well-known/x402')
        return discovery.wellKnown(req, res, api)
      // A person's browser at `/` gets the API's page (scripts keep their JSON answers).
      if (req.path === '/' && (await apiPage.serve(req, res, api))) return
    }
    // The API page's try-it of a route a link cannot open (POST …): the paywall page for that request.
    if (req.path === tryItPath && req.method === 'GET')
      return serveTryIt(req, res, api, { run: (asked) => flow.run(asked, api, version), paywall, write: writeOutcome })
    // svc's own routes for the paywall page (its script; the Sandbox's RPC and faucet).
    if (req.path.startsWith(ownRoutesPrefix)) return paywallRoutes.serve(req, res, api)
    const outcome = await flow.run(new ExpressGatewayRequest(req, res), api, version)
    // Only a 402 may be the paywall page (a browser's unpaid GET): a paid answer goes straight out.
    if (outcome.type === 'payment-required') {
      const page = paywall.html(req, api, outcome)
      if (page !== undefined) return paywall.write(res, outcome, page)
    }
    writeOutcome(res, outcome)
  }
}

/**
 * Whether serve() takes a request for `url` straight to the payment flow: not the API page (`/`), its discovery
 * documents, svc's own routes (`/__svc/…`, and the cluster's `/_svc/…` before it), nor a path express would read
 * differently (a `#` in it). Without slicing: every request to a gateway host asks.
 */
function unpaidFlowPath(url: string): boolean {
  const second = url.charCodeAt(1)
  // `/`, `/?…`, `/_…` (svc's), `/.…` (`/.well-known/…`), and a fragment: express's way.
  if (url.length < 2 || second === 0x3f || second === 0x5f || second === 0x2e || url.includes('#')) return false
  return !url.startsWith('/openapi.json') || (url.length > 13 && url.charCodeAt(13) !== 0x3f)
}

export type ApiCache = {
  /** The API a gateway host serves (see {@link resolveGatewayApi}), read again only when the database changed. */
  resolve(route: HostRoute, version: number): Promise<ApiRow | undefined>
  /** The API {@link resolve} answers without a read, if it needs none and there is one. */
  peek(route: HostRoute, version: number): ApiRow | undefined
}

/** At most this many hosts are remembered; past it the one asked for longest ago is forgotten. */
const maxHosts = 10_000

/** {@link resolveGatewayApi} cached per host under the {@link GatewayStore} version. */
export function createApiCache(deps: ServerDeps): ApiCache {
  const hosts = new LRUCache<string, { version: number; api: ApiRow | undefined }>({ max: maxHosts })
  return {
    async resolve(route, version) {
      const key = keyOf(route)
      if (key === undefined) return undefined
      const cached = hosts.get(key)
      if (cached && cached.version === version) return cached.api
      const api = await resolveGatewayApi(deps, route)
      hosts.set(key, { version, api })
      return api
    },
    peek(route, version) {
      const key = keyOf(route)
      const cached = key === undefined ? undefined : hosts.get(key)
      return cached && cached.version === version ? cached.api : undefined
    },
  }
}

/** A gateway host's key in the API cache. */
const keyOf = (route: HostRoute) =>
  route.kind === 'gateway'
    ? `${route.environment} ${route.slug}`
    : route.kind === 'custom'
      ? `custom ${route.hostname}`
      : undefined

/**
 * The payment flow's view of a node:http request. What most requests never read (the buyer's address, the "buyer
 * gone" signal) is looked up on first use, so an unpaid request costs one small object.
 */
abstract class IncomingGatewayRequest implements GatewayRequest {
  readonly method: string
  readonly url: string
  readonly baseUrl: string
  readonly headers: IncomingHttpHeaders
  readonly body: Readable
  readonly #req: IncomingMessage
  readonly #res: ServerResponse
  #buyerGone: AbortController | undefined

  constructor(req: IncomingMessage, res: ServerResponse, baseUrl: string) {
    this.method = req.method!
    // The gateway's path: a direct URL's prefix is in baseUrl (express's originalUrl keeps it).
    this.url = req.url!
    this.baseUrl = baseUrl
    this.headers = req.headers
    this.body = req
    this.#req = req
    this.#res = res
  }

  abstract get protocol(): string

  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress
  }

  /** Aborted when the response closes before it was written (the buyer's connection went away). */
  get signal(): AbortSignal {
    if (!this.#buyerGone) {
      const buyerGone = new AbortController()
      this.#buyerGone = buyerGone
      const res = this.#res
      if (res.closed) {
        if (!res.writableFinished) buyerGone.abort()
      }
      // After a whole answer nothing is left to stop, and an abort costs a DOMException (its stack): a few % of a
      // voucher-paid request's CPU.
      else
        res.once('close', () => {
          if (!res.writableFinished) buyerGone.abort()
        })
    }
    return this.#buyerGone.signal
  }
}

/** The payment flow's view of an express request. */
export class ExpressGatewayRequest extends IncomingGatewayRequest {
  readonly #req: Request

  constructor(req: Request, res: Response) {
    super(req, res, req.baseUrl)
    this.#req = req
  }

  get protocol(): string {
    return this.#req.protocol
  }
}

/** A request answered before express ({@link Gateway.unpaid}), with express's `req.protocol` worked out for it. */
class PlainGatewayRequest extends IncomingGatewayRequest {
  readonly #protocol: string

  constructor(req: IncomingMessage, res: ServerResponse, protocol: string) {
    super(req, res, '')
    this.#protocol = protocol
  }

  get protocol(): string {
    return this.#protocol
  }
}

/** The headers and body of a 402 as {@link writeOutcome} writes them, worked out once per 402 the flow keeps. */
const known402s = new WeakMap<PaymentRequiredOutcome, { headers: string[]; body: Buffer }>()

/** Writes a 402 the flow keeps (its unpaid 402s): the bytes {@link writeOutcome} writes, without building them again. */
export function writeKnown402(res: ServerResponse, outcome: PaymentRequiredOutcome): void {
  let known = known402s.get(outcome)
  if (!known) {
    const body = Buffer.from(outcome.body)
    const headers = ['content-type', jsonType, 'cache-control', 'no-store', 'payment-required', outcome.header]
    if (outcome.paymentResponse !== undefined) headers.push('payment-response', outcome.paymentResponse)
    headers.push('content-length', String(body.length))
    known = { headers, body }
    known402s.set(outcome, known)
  }
  res.writeHead(402, known.headers).end(known.body)
}

const jsonType = 'application/json; charset=utf-8'

/** Writes a JSON answer never cached, with `headers` beside it (those undefined left out). */
function writeJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string | undefined>,
): void {
  const given = Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined)
  // Its length said, so node sends one plain body instead of chunks (writeHead's headers leave it none to add).
  const length = String(Buffer.byteLength(body))
  res
    .writeHead(status, {
      'content-type': jsonType,
      'cache-control': 'no-store',
      ...Object.fromEntries(given),
      'content-length': length,
    })
    .end(body)
}

/** Writes a {@link PaymentOutcome} (no express needed: a node:http response will do). */
export function writeOutcome(res: ServerResponse, outcome: PaymentOutcome): void {
  switch (outcome.type) {
    case 'payment-required':
      writeJson(res, 402, outcome.body, {
        'payment-required': outcome.header,
        'payment-response': outcome.paymentResponse,
      })
      return
    case 'error':
      if (res.headersSent) res.destroy()
      else
        writeJson(res, outcome.status, JSON.stringify({ error: outcome.error }), {
          'retry-after': outcome.retryAfter === undefined ? undefined : String(outcome.retryAfter),
          'payment-response': outcome.paymentResponse,
        })
      return
    case 'paid': {
      // The buyer was charged: whether the answer reached its connection goes to the settlement's record.
      const { written } = outcome
      if (res.closed || res.destroyed) {
        written(false)
        return
      }
      // Delivered: 'finish' (the whole answer handed to the connection) on a connection still whole. Node also
      // finishes a response whose connection broke off mid-body (the buyer hung up), with the socket destroyed.
      const socket = res.socket
      let delivered = false
      res.once('finish', () => (delivered = socket !== null && !socket.destroyed && !socket.errored))
      res.once('close', () => written(delivered))
      res.writeHead(outcome.status, outcome.headers).end(outcome.body)
      return
    }
    case 'pass-through': {
      // An upstream 4xx goes to the buyer as it is, streamed.
      const { upstream } = outcome
      res.writeHead(upstream.status, upstream.headers)
      upstream.body.on('error', () => res.destroy())
      upstream.body.on('end', () => upstream.done())
      upstream.body.pipe(res)
      return
    }
    case 'buyer-gone':
      return
  }
}
