import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createErrorHandler, createJsonApp, listen, notFoundHandler, type Listening } from '../../core/http.js'
import { BadRequestError } from '../../core/errors.js'
import { startTestServer, type TestServer } from '../helpers/control.js'

// Error answers and log lines are bounded whatever the input: a hostile client cannot make svc echo its megabyte.

/** A raw HTTP exchange (fetch refuses to send some of what is sent here). */
function rawRequest(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    // Connects to 127.0.0.1 and names the URL's host in `Host` (the control plane's hosts are *.localhost names).
    const { host, port } = new URL(url)
    const headers = { host, ...options.headers }
    const req = request(
      { hostname: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
      },
    )
    req.on('error', reject)
    req.end(options.body)
  })
}

describe('the control plane', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startTestServer()
  })
  afterAll(() => t?.stop())

  test('20,000 unknown fields → a 400 that names a few of them, under 1 KB', async () => {
    const body = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`field_${i}`, i]))
    const answer = await t.call('/auth/signup', { body: { email: 'a@b.test', password: 'long enough', ...body } })
    expect(answer.status).toBe(400)
    expect(answer.body.error).toMatch(/^unknown field "field_0", "field_1", "field_2" and 19997 more$/)
    expect(JSON.stringify(answer.body).length).toBeLessThan(1024)
  })

  test('an unknown field with a 10,000-character name is cut', async () => {
    const name = 'x'.repeat(10_000)
    const answer = await t.call('/auth/signup', { body: { email: 'a@b.test', password: 'long enough', [name]: 1 } })
    expect(answer.status).toBe(400)
    expect(answer.body.error.startsWith('unknown field "xxx')).toBe(true)
    expect(answer.body.error.length).toBeLessThan(200)
  })

  test('a 10,000-character path in a 404 is cut', async () => {
    const answer = await t.call(`/${'p'.repeat(10_000)}`, { unchecked: true })
    expect(answer.status).toBe(404)
    expect(answer.body.error.startsWith('no route for GET /ppp')).toBe(true)
    expect(answer.body.error.length).toBeLessThan(300)
  })

  test('headers over 16 KB → 431 {"error": "request headers too large"} as JSON', async () => {
    const answer = await rawRequest(t.server.controlUrl, { path: '/auth/me', headers: { 'x-big': 'a'.repeat(20_000) } })
    expect(answer.status).toBe(431)
    expect(answer.headers['content-type']).toMatch(/^application\/json/)
    expect(JSON.parse(answer.body)).toEqual({ error: 'request headers too large' })
    // The server goes on serving.
    expect((await t.call('/auth/me')).status).toBe(401)
  })

  test('a malformed request line → 400 JSON', async () => {
    const { connect } = await import('node:net')
    const socket = connect(t.server.port, '127.0.0.1')
    socket.end('NOT HTTP AT ALL\r\n\r\n')
    let raw = ''
    socket.setEncoding('utf8')
    for await (const chunk of socket) raw += chunk
    expect(raw.startsWith('HTTP/1.1 400 ')).toBe(true)
    expect(JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'malformed HTTP request' })
  })
})

describe('the error handler', () => {
  const logged: string[] = []
  let listening: Listening
  beforeAll(async () => {
    const app = createJsonApp()
    app.get('/crash', () => {
      throw new Error(`bad input ${'z'.repeat(200_000)}`)
    })
    app.get('/refuse', () => {
      throw new BadRequestError(`value ${'v'.repeat(200_000)} is wrong`)
    })
    app.use(notFoundHandler)
    app.use(createErrorHandler({ log: (line) => logged.push(line) }))
    listening = await listen(app)
  })
  afterAll(() => listening?.close())

  test("an internal error's log line is bounded, and the answer stays `internal error`", async () => {
    const answer = await rawRequest(listening.url, { path: '/crash' })
    expect(answer.status).toBe(500)
    expect(JSON.parse(answer.body)).toEqual({ error: 'internal error' })
    expect(logged).toHaveLength(1)
    expect(logged[0]!.startsWith('internal error: Error: bad input zzz')).toBe(true)
    expect(logged[0]!.length).toBeLessThanOrEqual(4096)
  })

  test('a client error with an unbounded message is cut', async () => {
    const answer = await rawRequest(listening.url, { path: '/refuse' })
    expect(answer.status).toBe(400)
    const { error } = JSON.parse(answer.body) as { error: string }
    expect(error.startsWith('value vvv')).toBe(true)
    expect(error.length).toBeLessThanOrEqual(1024)
  })
})
