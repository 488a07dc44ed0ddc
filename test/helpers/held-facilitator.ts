/**
 * A proxy in front of a real facilitator that can hold the settlements asked of it: while held, a `/settle` request
 * waits in the proxy, sent on to the facilitator only when released (whether the process that asked for it is still
 * there or not), as a settlement still on its way at the facilitator when svc died. Everything else passes at once.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type HeldFacilitator = {
  url: string
  /** Holds every `/settle` from now on. */
  hold(): void
  /** How many `/settle` requests wait now. */
  readonly waiting: number
  /** Sends the held settlements on, and lets the next ones pass. */
  release(): void
  stop(): Promise<void>
}

export async function startHeldFacilitator(target: string): Promise<HeldFacilitator> {
  let held: (() => void)[] | undefined
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    if (held && req.url?.endsWith('/settle')) await new Promise<void>((resolve) => held!.push(resolve))
    const headers: Record<string, string> = {}
    for (const name of ['content-type', 'authorization'])
      if (typeof req.headers[name] === 'string') headers[name] = req.headers[name]
    try {
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
      })
      const body = await answer.text()
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
      res.end(body)
    } catch {
      res.destroy()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold() {
      held ??= []
    },
    get waiting() {
      return held?.length ?? 0
    },
    release() {
      const waiting = held ?? []
      held = undefined
      for (const send of waiting) send()
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
