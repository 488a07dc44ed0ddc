/**
 * A load generator that costs the bench as little as it can, since it shares the 2 cores with the processes it
 * measures: plain keep-alive sockets, the same request bytes written `depth` at a time (HTTP/1.1 pipelining), answers
 * counted by their status line and Content-Length (or a chunked body's last chunk) without an HTTP client. For GETs
 * whose answers are small JSON.
 */
import { connect, type Socket } from 'node:net'

export type RawLoadOptions = {
  /** The processes' ports on 127.0.0.1, served round robin by connection. */
  ports: readonly number[]
  host: string
  path: string
  requests: number
  /** Open connections. @defaultValue 32 */
  connections?: number
  /** Requests in flight on each connection. @defaultValue 4 */
  depth?: number
}

export type RawLoadResult = { wallMs: number; statuses: Record<number, number> }

const headEnd = Buffer.from('\r\n\r\n')
const lastChunk = Buffer.from('\r\n0\r\n\r\n')
const lengthNames = [Buffer.from('\r\nContent-Length:'), Buffer.from('\r\ncontent-length:')]

/** Sends `requests` GETs over the connections and resolves when every answer has arrived. */
export async function rawLoad(options: RawLoadOptions): Promise<RawLoadResult> {
  const { ports, requests, connections = 32, depth = 4 } = options
  const request = Buffer.from(`GET ${options.path} HTTP/1.1\r\nhost: ${options.host}\r\n\r\n`)
  const statuses: Record<number, number> = {}
  let unsent = requests
  let unanswered = requests
  const sockets: Socket[] = []
  const started = performance.now()
  await new Promise<void>((resolve, reject) => {
    const send = (socket: Socket, count: number) => {
      const n = Math.min(count, unsent)
      if (n <= 0) return
      unsent -= n
      socket.write(n === 1 ? request : Buffer.concat(Array.from({ length: n }, () => request)))
    }
    for (let i = 0; i < Math.min(connections, requests); i++) {
      const socket = connect({ port: ports[i % ports.length]!, host: '127.0.0.1', noDelay: true })
      sockets.push(socket)
      let pending: Buffer = Buffer.alloc(0)
      socket.on('error', reject)
      socket.on('connect', () => send(socket, depth))
      socket.on('data', (chunk: Buffer) => {
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
        let answered = 0
        for (;;) {
          const end = pending.indexOf(headEnd)
          if (end < 0) break
          let at = -1
          let name = 0
          while (at < 0 && name < lengthNames.length) at = pending.subarray(0, end).indexOf(lengthNames[name++]!)
          let total: number
          if (at >= 0) {
            const length = Number.parseInt(
              pending.toString('latin1', at + lengthNames[0]!.length, Math.min(end, at + 40)),
              10,
            )
            total = end + headEnd.length + length
            if (pending.length < total) break
          } else {
            // Chunked (a JSON body never holds the last chunk's bytes).
            const last = pending.indexOf(lastChunk, end + 2)
            if (last < 0) break
            total = last + lastChunk.length
          }
          const status = Number(pending.toString('latin1', 9, 12))
          statuses[status] = (statuses[status] ?? 0) + 1
          pending = pending.subarray(total)
          answered++
        }
        if (answered === 0) return
        unanswered -= answered
        if (unanswered === 0) resolve()
        else send(socket, answered)
      })
    }
  })
  const wallMs = performance.now() - started
  for (const socket of sockets) socket.destroy()
  return { wallMs, statuses }
}
