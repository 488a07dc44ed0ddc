import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'

/**
 * What the payment flow reads of a buyer's request, and nothing of a web framework: an adapter (server/gateway/index.ts: ExpressGatewayRequest)
 * makes one of each request.
 */
export type GatewayRequest = {
  /** Upper case, as received. */
  readonly method: string
  /** The request target as received: path and query (`/weather/Paris?units=metric`). */
  readonly url: string
  /**
   * What the buyer's URL has before `url`: '' on a gateway host, `/gateway/{host}` on its direct URL
   * (server/app.ts: directGatewayRoute; express's name for a mount path).
   */
  readonly baseUrl: string
  /** Lower-case names, as node:http gives them. */
  readonly headers: IncomingHttpHeaders
  /** The scheme of the resource URL a 402 names (`http`: svc does not terminate TLS). */
  readonly protocol: string
  /** The buyer's address, for X-Forwarded-For. */
  readonly remoteAddress: string | undefined
  /** The body, streamed to the upstream untouched. */
  readonly body: Readable
  /** Aborted once the buyer went away (the connection closed before an answer was written). */
  readonly signal: AbortSignal
}
