import { once } from 'node:events'
import type { AddressInfo, Socket } from 'node:net'
import { STATUS_CODES, type Server } from 'node:http'
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express'
import { z } from 'zod'
import { BadRequestError, SvcError } from './errors.js'

/** Largest JSON body any svc service accepts. */
export const jsonBodyLimit = '1mb'

/** Parses JSON bodies (strict, at most {@link jsonBodyLimit}). */
export const jsonBody = (): RequestHandler =>
  express.json({ limit: jsonBodyLimit, strict: true, type: ['application/json', 'application/*+json'] })

/** An express app with svc's conventions: no `x-powered-by`, no etags; JSON bodies parsed unless `json: false`. */
export function createJsonApp(options: { json?: boolean } = {}): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  if (options.json !== false) app.use(jsonBody())
  return app
}

/** Longest error message an answer carries; a longer one (it echoes input) is cut. */
export const errorMessageLimit = 1000
/** Longest echoed value (a field name, a path) inside an error message. */
export const echoedValueLimit = 100
/** Longest line the error handler logs. */
export const logLineLimit = 4000

/** `text` as it is when at most `limit` characters, else its start and `… (N characters)`. */
export function cutText(text: string, limit: number): string {
  if (text.length <= limit) return text
  const suffix = `… (${text.length} characters)`
  return `${text.slice(0, Math.max(0, limit - suffix.length))}${suffix}`
}

/** JSON 404 for anything no route answered. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: `no route for ${cutText(req.method, 20)} ${cutText(req.path, echoedValueLimit)}` })
}

/**
 * The one error handler: typed errors keep their status and message; anything else is a logged 500. Every message
 * is cut to {@link errorMessageLimit} characters and every log line to {@link logLineLimit}.
 */
export function createErrorHandler(
  options: {
    log?: (message: string) => void
    /** Turns an untyped error into a typed one where the caller knows better (the server: a full data dir is a 503). */
    translate?: (error: unknown) => SvcError | undefined
  } = {},
): ErrorRequestHandler {
  const { log = (message) => console.error(message), translate } = options
  const answer = (res: Parameters<ErrorRequestHandler>[2], status: number, message: string) =>
    void res.status(status).json({ error: cutText(message, errorMessageLimit) })
  return (thrown, _req, res, _next) => {
    if (res.headersSent) return void res.end()
    const error = (!(thrown instanceof SvcError) && translate?.(thrown)) || thrown
    if (error instanceof SvcError) {
      if (error.retryAfterSeconds !== undefined) res.set('retry-after', String(Math.ceil(error.retryAfterSeconds)))
      return answer(res, error.status, error.message)
    }
    if (error instanceof z.ZodError) return answer(res, 400, formatZodError(error))
    // body-parser's errors carry a `type` and a client status.
    const type = (error as { type?: string }).type
    if (type === 'entity.parse.failed') return answer(res, 400, 'malformed JSON body')
    if (type === 'entity.too.large') return answer(res, 413, `body larger than ${jsonBodyLimit}`)
    const status = (error as { status?: number }).status
    if (typeof status === 'number' && status >= 400 && status < 500)
      return answer(res, status, (error as Error).message || 'bad request')
    log(cutText(`internal error: ${(error as Error)?.stack ?? String(error)}`, logLineLimit))
    answer(res, 500, 'internal error')
  }
}

/** Unknown fields an error message names; the rest are counted. */
const unknownFieldsNamed = 3

/** One line naming the first problem zod found, e.g. `address: not an address`; echoed names and paths are cut. */
export function formatZodError(error: z.ZodError): string {
  const issue = error.issues[0]
  if (!issue) return 'invalid request'
  if (issue.code === 'unrecognized_keys') {
    const named = issue.keys.slice(0, unknownFieldsNamed).map((key) => `"${cutText(key, echoedValueLimit)}"`)
    const more = issue.keys.length - named.length
    return `unknown field ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`
  }
  const path = cutText(issue.path.map(String).join('.'), echoedValueLimit)
  const message = cutText(issue.message, errorMessageLimit - path.length - 2)
  return path ? `${path}: ${message}` : message
}

/** Parses with a zod schema and throws a 400 naming the first problem. */
export function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (body === undefined) throw new BadRequestError('expected a JSON body (Content-Type: application/json)')
  const result = schema.safeParse(body)
  if (!result.success) throw new BadRequestError(formatZodError(result.error))
  return result.data
}

export type Listening = { server: Server; url: string; port: number; close(): Promise<void> }

/** Listens on host:port (0 picks a free port) and returns the URL and a `close` that ends keep-alive sockets too. */
export async function listen(app: Express, options: { port?: number; host?: string } = {}): Promise<Listening> {
  const { port = 0, host = '127.0.0.1' } = options
  const server = app.listen(port, host)
  try {
    await once(server, 'listening')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new SvcError(`port ${port} on ${host} is in use: stop what runs there, or pass --port 0 for a free port`, {
        cause: error,
      })
    throw error
  }
  server.keepAliveTimeout = 65_000
  server.on('clientError', answerClientError)
  const actual = (server.address() as AddressInfo).port
  let closing: Promise<void> | undefined
  return {
    server,
    port: actual,
    url: `http://${host}:${actual}`,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      return closing
    },
  }
}

/**
 * A request node:http could not parse, answered in svc's JSON like every other error: 431 `request headers too
 * large` (over node's 16 KB), 408 for a request that took too long, 400 `malformed HTTP request` otherwise. Node
 * writes an empty answer by default; this writes the same statuses with a JSON body, then closes the socket.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent) return void socket.destroy()
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'request headers too large']
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request timeout']
        : [400, 'malformed HTTP request']
  const body = JSON.stringify({ error: message })
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  )
}

/** A route parameter as one string (express 5 types them as possibly repeated). */
export const param = (value: string | string[] | undefined): string =>
  Array.isArray(value) ? value.join('/') : (value ?? '')
