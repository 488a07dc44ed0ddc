/**
 * A load balancer a test's clients reach over TCP, as a team's would (the README's Caddy site): one port on
 * 127.0.0.1 in front of a cluster's processes, each request to the next live one (round robin), the Host header the
 * client's, `X-Forwarded-For` and `-Proto` set, a refused connection sent to the next process (Caddy's `lb_retries`),
 * and the answer streamed back (an event stream stays open). A request whose process died under it is not sent again
 * (a paid request may have settled there): the client's connection is dropped, as a TCP balancer's client sees it.
 */
import { once } from 'node:events'
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type BalancedProcess = { ready: Record<string, any> }

export type BalancerProxy = {
  port: number
  /** Which process's port answered each request, in order (the test's check that the requests were spread). */
  answeredBy: number[]
  stop(): Promise<void>
}

const refused = (error: unknown) => (error as { code?: string }).code === 'ECONNREFUSED'

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/**
 * Starts the balancer over `processes` (read at each request, so a process started later joins and a killed one
 * is dropped at its first refused connection).
 */
export async function startBalancerProxy(processes: BalancedProcess[]): Promise<BalancerProxy> {
  const down = new Set<BalancedProcess>()
  const answeredBy: number[] = []
  let turn = 0
  const server: Server = createServer(async (req, res) => {
    // The body is read first so a refused connection can be retried on the next process (requests here are small).
    const body = await readBody(req)
    for (;;) {
      const live = processes.filter((svc) => !down.has(svc))
      const svc = live[turn++ % Math.max(live.length, 1)]
      if (!svc) {
        res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"no process is up"}')
        return
      }
      // Hop-by-hop headers stay here (HTTP/1.1's Connection, Keep-Alive).
      const { connection: _connection, 'keep-alive': _keepAlive, ...endToEnd } = req.headers
      const headers = {
        ...endToEnd,
        'x-forwarded-for': req.socket.remoteAddress ?? '127.0.0.1',
        'x-forwarded-proto': 'http',
      }
      const upstream = httpRequest({
        host: '127.0.0.1',
        port: svc.ready.port,
        method: req.method,
        path: req.url,
        headers,
        // A connection per request: a kept-alive one to a killed process would fail as a reset, not as refused.
        agent: false,
      })
      const answered = await new Promise<IncomingMessage | Error>((resolve) => {
        upstream.once('response', resolve)
        upstream.once('error', resolve)
        upstream.end(body)
      })
      if (answered instanceof Error) {
        if (refused(answered)) {
          down.add(svc)
          continue
        }
        req.socket.destroy()
        return
      }
      answeredBy.push(svc.ready.port)
      res.writeHead(answered.statusCode ?? 502, answered.headers)
      res.flushHeaders()
      answered.pipe(res)
      // A process that dies while streaming: the client's connection ends too (it sees a cut answer).
      answered.once('error', () => res.destroy())
      res.once('close', () => answered.destroy())
      return
    }
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    port: (server.address() as AddressInfo).port,
    answeredBy,
    async stop() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
