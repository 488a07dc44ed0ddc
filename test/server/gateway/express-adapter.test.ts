/** The gateway's edge (server/gateway/index.ts, after the gateway): each PaymentOutcome as it goes on the wire. */
import { createServer, type ServerResponse } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { ExpressGatewayRequest, writeOutcome } from '../../../server/gateway/index.js'
import type { PaymentOutcome } from '../../../server/payments/index.js'

let next: (res: ServerResponse) => void = () => {}
const server = createServer((_req, res) => next(res))
let url: string
let port: number

/** A promise and its resolve function. */
function resolvers<T>() {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((done) => (resolve = done))
  return { promise, resolve }
}

beforeAll(async () => {
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  port = (server.address() as AddressInfo).port
  url = `http://127.0.0.1:${port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const answer = (outcome: PaymentOutcome) => {
  next = (res) => writeOutcome(res, outcome)
  return fetch(url)
}

describe('writeOutcome', () => {
  test('payment-required: a 402 with PAYMENT-REQUIRED and the JSON body of a said length (not chunked), never cached', async () => {
    const response = await answer({ type: 'payment-required', header: 'eyJ9', body: '{"x402Version":2,"é":1}' })
    expect(response.status).toBe(402)
    expect(response.headers.get('content-length')).toBe(String(Buffer.byteLength('{"x402Version":2,"é":1}')))
    expect(response.headers.get('transfer-encoding')).toBeNull()
    expect(response.headers.get('payment-required')).toBe('eyJ9')
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.text()).toBe('{"x402Version":2,"é":1}')
  })

  test('error: {"error"} with its status', async () => {
    const response = await answer({ type: 'error', status: 410, error: 'gone' })
    expect(response.status).toBe(410)
    expect(response.headers.get('content-length')).toBe(String('{"error":"gone"}'.length))
    expect(response.headers.get('cache-control')).toBe('no-store')
    expect(await response.json()).toEqual({ error: 'gone' })
  })

  test('paid: status, headers and the held body; written(true) once it is out', async () => {
    const written = resolvers<boolean>()
    const response = await answer({
      type: 'paid',
      status: 201,
      headers: { 'payment-response': 'abc', 'content-length': '2' },
      body: Buffer.from('ok'),
      written: written.resolve,
    })
    expect(response.status).toBe(201)
    expect(response.headers.get('payment-response')).toBe('abc')
    expect(await response.text()).toBe('ok')
    expect(await written.promise).toBe(true)
  })

  test('paid: written(false) when the buyer hangs up before the answer is out', async () => {
    const written = resolvers<boolean>()
    // 64 MB cannot all sit in the socket buffers: the buyer reads the first bytes and leaves before the body is out.
    const body = Buffer.alloc(64 * 1024 * 1024, 'x')
    next = (res) =>
      writeOutcome(res, {
        type: 'paid',
        status: 200,
        headers: { 'content-length': String(body.length) },
        body,
        written: written.resolve,
      })
    const socket = connect(port, '127.0.0.1')
    socket.write('GET / HTTP/1.1\r\nhost: x\r\n\r\n')
    const head = await new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))))
    socket.destroy()
    expect(head).toMatch(/^HTTP\/1.1 200/)
    expect(await written.promise).toBe(false)
  })

  test('paid: written(false) at once when the buyer left before the answer was ready', async () => {
    const written = resolvers<boolean>()
    const controller = new AbortController()
    next = (res) => {
      controller.abort()
      res.once('close', () =>
        writeOutcome(res, {
          type: 'paid',
          status: 200,
          headers: {},
          body: Buffer.from('late'),
          written: written.resolve,
        }),
      )
    }
    await fetch(url, { signal: controller.signal }).catch(() => undefined)
    expect(await written.promise).toBe(false)
  })

  test('pass-through: the upstream answer streamed as it is; done() once it ended', async () => {
    let done = false
    const body = Readable.from([Buffer.from('{"error":'), Buffer.from('"nope"}')])
    const response = await answer({
      type: 'pass-through',
      upstream: {
        ok: true,
        status: 404,
        headers: { 'content-type': 'application/json', 'x-upstream': 'yes' },
        body,
        read: async () => Buffer.alloc(0),
        done: () => void (done = true),
      },
    })
    expect(response.status).toBe(404)
    expect(response.headers.get('x-upstream')).toBe('yes')
    expect(await response.json()).toEqual({ error: 'nope' })
    expect(done).toBe(true)
  })
})

describe('ExpressGatewayRequest.signal', () => {
  const gatewayRequest = (req: unknown, res: ServerResponse) => new ExpressGatewayRequest(req as never, res as never)

  test('aborted when the buyer hangs up before the answer', async () => {
    const aborted = resolvers<boolean>()
    const controller = new AbortController()
    next = (res) => {
      const signal = gatewayRequest(res.req, res).signal
      signal.addEventListener('abort', () => aborted.resolve(signal.aborted))
      controller.abort()
    }
    await fetch(url, { signal: controller.signal }).catch(() => undefined)
    expect(await aborted.promise).toBe(true)
  })

  test('left alone once the whole answer was written', async () => {
    const closed = resolvers<boolean[]>()
    next = (res) => {
      const signal = gatewayRequest(res.req, res).signal
      // One asked for before the answer, one after the connection's close.
      res.once('close', () => closed.resolve([signal.aborted, gatewayRequest(res.req, res).signal.aborted]))
      res.end('done')
    }
    const response = await fetch(url)
    expect(await response.text()).toBe('done')
    expect(await closed.promise).toEqual([false, false])
  })
})
