import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { Agent } from 'undici'
import { cutText, echoedValueLimit } from '../../core/http.js'
import {
  type AddressRefusal,
  gatewayHopHeader,
  ownListenerTargetedBy,
  createUpstreamConnector,
  ownListenerOf,
} from './own-listeners.js'
import type { GatewayRequest } from './request.js'

export type UpstreamProxyOptions = {
  /** Deadline for the whole upstream exchange (connect, headers, body). @defaultValue 30000 */
  timeoutMs?: number | undefined
  /** Largest upstream answer the gateway holds while it settles. @defaultValue 10 MiB */
  maxResponseBytes?: number | undefined
  /** Where an upstream failure's detail goes (its address, the error's text, cut to 300 characters). @defaultValue none */
  log?: ((message: string) => void) | undefined
  /**
   * svc's own listeners by port (asked at each request: ports are known once svc listens); a target that resolves to
   * one of them is refused with 502 before any connection, and a connection that lands on one anyway (the name
   * resolved elsewhere a moment before) is closed before anything is sent. @defaultValue none
   */
  ownListeners?: (() => ReadonlyMap<number, string>) | undefined
  /** More addresses refused the same way (svc serve: non-public ranges, its own peers). @defaultValue none */
  refuse?: AddressRefusal | undefined
}

/** The longest error text of an upstream failure written to the log. */
const loggedDetailChars = 300

/**
 * Where a request goes: the upstream's origin and the path (base path + request path + query), sent as is;
 * `basePath` (no trailing slash, '' for none) is the API's, so a redirect onto the upstream maps back to the gateway.
 */
export type UpstreamTarget = { origin: string; path: string; basePath?: string | undefined }

/**
 * The target of `path` (already normalized) and `query` (`?…` or empty) under an upstream base URL; a base path
 * (`http://host/v1/`) prefixes the request path.
 */
export function upstreamTarget(baseUrl: string, path: string, query: string): UpstreamTarget {
  const base = new URL(baseUrl)
  const basePath = base.pathname.replace(/\/$/, '')
  return { origin: base.origin, path: `${basePath}${path}${query}`, basePath }
}

/** The upstream answered (any status); its body is still to be read or piped. */
export type UpstreamResponse = {
  ok: true
  status: number
  headers: Record<string, string | string[]>
  body: Readable
  /** Reads the body whole; past the size limit, on a timeout or a reset, the failure instead. */
  read(): Promise<Buffer | UpstreamFailure>
  /** Stops the deadline timer (once the answer was handed on). */
  done(): void
}

/**
 * The upstream did not answer usably: 502 (unreachable, reset, too large) or 504 (deadline). `error` is for the
 * buyer: it never names the upstream's address (a buyer who can reach it would skip the paywall); the log has it.
 */
export type UpstreamFailure = { ok: false; status: 502 | 504; error: string }

/** Hop-by-hop headers (RFC 9110 §7.6.1) and the ones the gateway owns; never forwarded either way. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
])
/**
 * Never sent upstream: the payment (v2 and v1 names), the gateway's Host, `expect` (undici refuses it), the gateway's
 * own marker (a buyer's is dropped; the proxy sets it), and the
 * `Access-Control-Expose-Headers` the x402 fetch client puts on its paid request (a response header, meant for svc).
 */
const notUpstream = new Set([
  'host',
  'payment-signature',
  'x-payment',
  'expect',
  'access-control-expose-headers',
  gatewayHopHeader,
])

export type UpstreamProxy = {
  /**
   * Sends the request to `target` (upstream base + path + query), streaming the request body. Resolves with the
   * upstream's answer or a failure; the request's `signal` aborts it (the buyer went away).
   */
  forward(req: GatewayRequest, target: UpstreamTarget): Promise<UpstreamResponse | UpstreamFailure>
  close(): Promise<void>
}

export function createUpstreamProxy(options: UpstreamProxyOptions = {}): UpstreamProxy {
  const { timeoutMs = 30_000, maxResponseBytes = 10 * 1024 * 1024, log, ownListeners, refuse } = options
  // Idle upstream connections are kept 4 s (less than Node's 5 s server default) unless the upstream says otherwise.
  const agent = new Agent({
    keepAliveTimeout: 4_000,
    connections: 256,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connect: createUpstreamConnector(ownListeners, { refuse }),
  })
  const seconds = `${Math.round(timeoutMs / 100) / 10} s`

  function failure(error: unknown, target: UpstreamTarget, timedOut: boolean): UpstreamFailure {
    const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause
    const code = [cause?.code, (error as { code?: unknown }).code].find(
      (value) => typeof value === 'string' && /^[A-Z0-9_]+$/.test(value),
    ) as string | undefined
    const listener = ownListenerOf(error)
    if (listener) return notAllowed(target, listener)
    const text = String(cause?.message ?? (error as Error).message ?? error)
    log?.(`upstream ${where(target)} failed: ${text.slice(0, loggedDetailChars)}${code ? ` (${code})` : ''}`)
    if (timedOut || /TIMEOUT/.test(String((error as { code?: unknown }).code)))
      return { ok: false, status: 504, error: `the upstream did not answer within ${seconds}` }
    return { ok: false, status: 502, error: `the upstream could not be reached (${code ?? 'no usable answer'})` }
  }

  function notAllowed(target: UpstreamTarget, listener: string): UpstreamFailure {
    log?.(`upstream ${where(target)} refused: it reaches ${listener}`)
    return { ok: false, status: 502, error: 'the upstream is not allowed' }
  }

  return {
    async forward(req, target) {
      // Checked again at each request, not only when the API was saved: a name can resolve differently later (and
      // the connector checks the address it connected to: the name may resolve elsewhere between here and there).
      const listener =
        (ownListeners || refuse) &&
        (await ownListenerTargetedBy(target.origin, ownListeners?.() ?? new Map(), { refuse }))
      if (listener) return notAllowed(target, listener)
      const signal = req.signal
      const deadline = new AbortController()
      let timedOut = false
      const timer = setTimeout(() => {
        timedOut = true
        deadline.abort()
      }, timeoutMs)
      const abort = () => deadline.abort()
      signal.addEventListener('abort', abort, { once: true })
      const done = () => {
        clearTimeout(timer)
        signal.removeEventListener('abort', abort)
      }
      const hasBody =
        (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0') ||
        req.headers['transfer-encoding'] !== undefined
      try {
        const response = await agent.request({
          origin: target.origin,
          path: target.path,
          method: req.method as 'GET',
          headers: upstreamHeaders(req),
          body: hasBody ? req.body : null,
          signal: deadline.signal,
        })
        const headers = responseHeaders(response.headers)
        hideUpstreamOrigin(headers, { origin: target.origin, basePath: target.basePath ?? '' }, req.baseUrl)
        const body = response.body
        return {
          ok: true,
          status: response.statusCode,
          headers,
          body,
          done,
          async read() {
            const chunks: Buffer[] = []
            let size = 0
            try {
              for await (const chunk of body) {
                size += chunk.length
                if (size > maxResponseBytes) {
                  body.destroy()
                  return {
                    ok: false,
                    status: 502,
                    error: `the upstream answer is larger than ${maxResponseBytes} bytes`,
                  }
                }
                chunks.push(chunk)
              }
            } catch (error) {
              return failure(error, target, timedOut)
            } finally {
              done()
            }
            return Buffer.concat(chunks, size)
          },
        }
      } catch (error) {
        done()
        return failure(error, target, timedOut)
      }
    },
    close: () => agent.close(),
  }
}

/** The upstream and the request path (no query), cut, for the log. */
const where = (target: UpstreamTarget) => cutText(`${target.origin}${target.path.split('?')[0]}`, 2 * echoedValueLimit)

/** The buyer's headers minus hop-by-hop ones, those named in Connection, and the payment; plus X-Forwarded-*. */
function upstreamHeaders(req: GatewayRequest): Record<string, string | string[]> {
  const named = connectionTokens(req.headers.connection)
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers)) {
    if (
      value === undefined ||
      hopByHop.has(name) ||
      notUpstream.has(name) ||
      name.startsWith('proxy-') ||
      named?.has(name)
    )
      continue
    headers[name] = value
  }
  const forwardedFor = req.headers['x-forwarded-for']
  const remote = req.remoteAddress ?? ''
  headers['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${remote}` : remote
  if (req.headers.host) headers['x-forwarded-host'] = req.headers.host
  headers['x-forwarded-proto'] = req.protocol
  // The direct URL's `/gateway/{host}` (server/app.ts: directGatewayRoute), as path-prefix proxies tell it.
  if (req.baseUrl) headers['x-forwarded-prefix'] = req.baseUrl
  // Marks the request as the gateway's, so svc's own local-only routes never answer it (see own-listeners.ts).
  headers[gatewayHopHeader] = '1'
  return headers
}

/** The upstream's response headers minus hop-by-hop ones and those named in its Connection header. */
function responseHeaders(
  raw: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const named = connectionTokens(raw.connection as string | undefined)
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined || hopByHop.has(name) || name.startsWith('proxy-') || named?.has(name)) continue
    headers[name] = value
  }
  return headers
}

function connectionTokens(value: string | string[] | undefined): Set<string> | undefined {
  if (!value) return undefined
  return new Set(
    String(value)
      .toLowerCase()
      .split(',')
      .map((token) => token.trim()),
  )
}

/** Response headers whose URL can name the upstream's origin. */
const urlHeaders = ['location', 'content-location'] as const

/** An absolute URL (`http://…`) or a scheme-relative one (`//host/…`). */
const isAbsoluteReference = (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('//')

/**
 * `Location` and `Content-Location` as a buyer may see them: an absolute URL on the upstream's own origin (a redirect
 * to `http://127.0.0.1:5000/v1/login`) would show the buyer where the upstream is, and a buyer who reaches it skips
 * the paywall. Such a URL becomes the path the gateway serves it at (`/login`: the path under the API's base path,
 * with its query and fragment); one outside the base path, or that does not parse, is dropped. Relative URLs and
 * other origins pass unchanged. On a direct URL (`baseUrl` `/gateway/{host}`, server/app.ts) a path
 * from the root (`/login`, the upstream's or the one made here) gets that prefix, so the buyer stays on the direct
 * URL. Changes `headers` in place.
 */
export function hideUpstreamOrigin(
  headers: Record<string, string | string[]>,
  upstream: { origin: string; basePath: string },
  baseUrl = '',
): void {
  for (const name of urlHeaders) {
    const value = headers[name]
    if (value === undefined) continue
    const kept = (Array.isArray(value) ? value : [value])
      .map((one) => asSeenByBuyer(one, upstream))
      .filter((one) => one !== undefined)
      .map((one) => (baseUrl && /^\/(?!\/)/.test(one.trim()) ? `${baseUrl}${one.trim()}` : one))
    if (kept.length === 0) delete headers[name]
    else headers[name] = Array.isArray(value) ? kept : kept[0]!
  }
}

function asSeenByBuyer(value: string, upstream: { origin: string; basePath: string }): string | undefined {
  const trimmed = value.trim()
  if (!isAbsoluteReference(trimmed)) return value
  let url: URL
  try {
    url = new URL(trimmed, upstream.origin)
  } catch {
    return undefined
  }
  if (url.origin !== upstream.origin) return value
  const { basePath } = upstream
  if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined
  // One leading slash: `//host` would read as another origin.
  return `${url.pathname.slice(basePath.length).replace(/^\/+/, '/') || '/'}${url.search}${url.hash}`
}
