import type { IncomingHttpHeaders, ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import type { Request, Response } from 'express'
import type { GatewayRequest } from '../upstream/index.js'
import type { PaymentOutcome } from '../payments/index.js'

/**
 * The payment flow's view of an express request. What most requests never read (the buyer's address, the "buyer
 * gone" signal) is looked up on first use, so an unpaid request costs one small object.
 */
export class ExpressGatewayRequest implements GatewayRequest {
  readonly method: string
  readonly url: string
  readonly baseUrl: string
  readonly headers: IncomingHttpHeaders
  readonly body: Readable
  readonly #req: Request
  readonly #res: Response
  #buyerGone: AbortController | undefined

  constructor(req: Request, res: Response) {
    this.method = req.method
    // The gateway's path: a direct URL's prefix is in baseUrl (originalUrl keeps it).
    this.url = req.url
    this.baseUrl = req.baseUrl
    this.headers = req.headers
    this.body = req
    this.#req = req
    this.#res = res
  }

  get protocol(): string {
    return this.#req.protocol
  }

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
      'content-type': 'application/json; charset=utf-8',
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
