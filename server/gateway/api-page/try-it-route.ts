import { Readable } from 'node:stream'
import type { Request, Response } from 'express'
import { BadRequestError } from '../../../core/errors.js'
import type { ApiRow } from '../../db/index.js'
import type { GatewayRequest } from '../../upstream/index.js'
import type { PaymentOutcome } from '../../payments/index.js'
import type { PaywallRequest } from '../paywall/paywall-page.js'

/**
 * The try-it hand-off of a route a browser cannot open by a link (POST, PUT, PATCH, DELETE, with a JSON body):
 * the API page's form navigates to `GET /__svc/try-it?method=POST&resource=/echo&body={…}`, which answers the
 * paywall page for that request (its 402 asked of the payment flow as the route's own), and the page pays it with
 * the method and body. A GET route needs none of this: its try-it opens the route's URL.
 */
export const tryItPath = '/__svc/try-it'

const methods = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
/** A request that fits in a URL (browsers and svc's listener take more; a demo form needs less). */
const resourceLimit = 2048
const bodyLimit = 8192

const one = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)

/** The request a try-it URL names, checked: a method, a path on this host, an optional JSON body. */
export function readTryItRequest(query: Request['query']): PaywallRequest {
  const method = one(query.method)?.toUpperCase() ?? ''
  if (!methods.has(method)) throw new BadRequestError(`method must be one of ${[...methods].join(', ')}`)
  const resource = one(query.resource) ?? ''
  if (!resource.startsWith('/') || resource.startsWith('//') || resource.startsWith(tryItPath))
    throw new BadRequestError('resource must be a path on this host, such as /echo?x=1')
  if (resource.length > resourceLimit) throw new BadRequestError(`resource is longer than ${resourceLimit} characters`)
  const body = one(query.body)
  if (body === undefined || body.trim() === '') return { method, resource }
  if (body.length > bodyLimit) throw new BadRequestError(`body is longer than ${bodyLimit} characters`)
  try {
    JSON.parse(body)
  } catch {
    throw new BadRequestError('body must be JSON')
  }
  return { method, resource, body }
}

export type TryItParts = {
  run(request: GatewayRequest, api: ApiRow): Promise<PaymentOutcome>
  paywall: {
    html(req: Request, api: ApiRow, outcome: PaymentOutcome, request?: PaywallRequest): string | undefined
    write(res: Response, outcome: PaymentOutcome & { type: 'payment-required' }, html: string): void
  }
  /** Writes any other outcome (the gateway's own writer: server/gateway/index.ts). */
  write(res: Response, outcome: PaymentOutcome): void
}

/** GET /__svc/try-it: the paywall page of the named request (or, for a script, that request's JSON answer). */
export async function serveTryIt(req: Request, res: Response, api: ApiRow, parts: TryItParts): Promise<void> {
  const request = readTryItRequest(req.query)
  // The unpaid request as the route would get it, with nothing of the browser's but its host and user agent.
  const asked: GatewayRequest = {
    method: request.method,
    url: request.resource,
    baseUrl: req.baseUrl,
    headers: { host: req.headers.host, accept: 'application/json', 'user-agent': req.headers['user-agent'] },
    protocol: req.protocol,
    remoteAddress: req.socket.remoteAddress,
    body: Readable.from([]),
    signal: new AbortController().signal,
  }
  const outcome = await parts.run(asked, api)
  const page = parts.paywall.html(req, api, outcome, request)
  if (page !== undefined && outcome.type === 'payment-required') return parts.paywall.write(res, outcome, page)
  parts.write(res, outcome)
}
