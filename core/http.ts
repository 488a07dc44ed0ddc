import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express'
import { z } from 'zod'
import { BadRequestError, SvcError } from './errors.js'

/** Largest JSON body any svc service accepts. */
export const jsonBodyLimit = '1mb'

/** Parses JSON bodies (strict, at most {@link jsonBodyLimit}). */
export const jsonBody = (): RequestHandler => express.json({ limit: jsonBodyLimit, strict: true, type: ['application/json', 'application/*+json'] })

/** An express app with svc's conventions: no `x-powered-by`, no etags; JSON bodies parsed unless `json: false`. */
export function createJsonApp(options: { json?: boolean } = {}): Express {
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  if (options.json !== false) app.use(jsonBody())
  return app
}

/** JSON 404 for anything no route answered. */
export const notFoundHandler: RequestHandler = (req, res) => {
  res.status(404).json({ error: `no route for ${req.method} ${req.path}` })
}

/** The one error handler: typed errors keep their status and message; anything else is a logged 500. */
export function createErrorHandler(options: { log?: (message: string) => void } = {}): ErrorRequestHandler {
  const { log = (message) => console.error(message) } = options
  return (error, _req, res, _next) => {
    if (res.headersSent) return void res.end()
    if (error instanceof SvcError) {
      if (error.retryAfterSeconds !== undefined) res.set('retry-after', String(Math.ceil(error.retryAfterSeconds)))
      return void res.status(error.status).json({ error: error.message })
    }
    if (error instanceof z.ZodError) return void res.status(400).json({ error: formatZodError(error) })
    // body-parser's errors carry a `type` and a client status.
    const type = (error as { type?: string }).type
    if (type === 'entity.parse.failed') return void res.status(400).json({ error: 'malformed JSON body' })
    if (type === 'entity.too.large') return void res.status(413).json({ error: `body larger than ${jsonBodyLimit}` })
    const status = (error as { status?: number }).status
    if (typeof status === 'number' && status >= 400 && status < 500)
      return void res.status(status).json({ error: (error as Error).message || 'bad request' })
    log(`internal error: ${(error as Error)?.stack ?? String(error)}`)
    res.status(500).json({ error: 'internal error' })
  }
}

/** One line naming the first problem zod found, e.g. `address: not an address`. */
export function formatZodError(error: z.ZodError): string {
  const issue = error.issues[0]
  if (!issue) return 'invalid request'
  const path = issue.path.join('.')
  if (issue.code === 'unrecognized_keys') return `unknown field ${issue.keys.map((k) => `"${k}"`).join(', ')}`
  return path ? `${path}: ${issue.message}` : issue.message
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
      throw new SvcError(`port ${port} on ${host} is in use: stop what runs there, or pass --port 0 for a free port`, { cause: error })
    throw error
  }
  server.keepAliveTimeout = 65_000
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

/** A route parameter as one string (express 5 types them as possibly repeated). */
export const param = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join('/') : (value ?? ''))
