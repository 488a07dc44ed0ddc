import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export type GatedUpstream = { url: string; calls: number; hold(): void; open(): void; stop(): Promise<void> }

/** An upstream that answers at once, or once `open()` is called after `hold()`. */
export async function startGatedUpstream(): Promise<GatedUpstream> {
  let waiting: (() => void)[] | undefined
  const state = { calls: 0 }
  const server = createServer((req, res) => {
    state.calls++
    const answer = () =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ url: req.url }))
    if (waiting) waiting.push(answer)
    else answer()
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get calls() {
      return state.calls
    },
    hold() {
      waiting ??= []
    },
    open() {
      const gate = waiting ?? []
      waiting = undefined
      for (const answer of gate) answer()
    },
    async stop() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}
