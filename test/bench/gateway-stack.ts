/**
 * One gateway of the gateway bench, run as its own Node process (`node --import tsx gateway-stack.ts <config JSON>`),
 * so svc and the reference run the same way: each in a process of its own, paying through the same facilitator of
 * the same chain (`svc up` in a third process). Prints one ready line `{"port": …}`; SIGTERM stops it.
 *
 * - `svc`: svc's server (control planes + gateway) on a fresh database, using that facilitator for development APIs.
 * - `reference`: express + `paymentMiddleware` of `@x402/express` with an `x402ResourceServer` on an
 *   `HTTPFacilitatorClient` to that facilitator, then a streaming proxy (undici) to the upstream.
 */
import '../../core/polyfill.js'
import { EventEmitter } from 'node:events'
import express from 'express'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { Agent } from 'undici'
import type { ChainServices } from '../../chain/services.js'
import { listen } from '../../core/http.js'
import { startServer } from '../../server/sandbox.js'

export type StackConfig =
  | { kind: 'svc'; facilitatorUrl: string; rpcUrl: string; chainManagerUrl: string; usdc: { address: string; name: string; version: string; decimals: number } }
  | {
      kind: 'reference'
      facilitatorUrl: string
      upstreamUrl: string
      network: `${string}:${string}`
      route: string
      payTo: string
      price: { amount: string; asset: string; extra: Record<string, unknown> }
      responseSchema: Record<string, unknown>
    }

const config = JSON.parse(process.argv[2]!) as StackConfig
let stop: () => Promise<void>

if (config.kind === 'svc') {
  // The chain runs elsewhere: svc's server needs only the facilitator URL and the token's facts from it.
  const chain = {
    facilitatorUrl: config.facilitatorUrl,
    rpcUrl: config.rpcUrl,
    chainManagerUrl: config.chainManagerUrl,
    // The chain's events (a restart) and epoch, as the server reads them; the bench's chain does not restart.
    chain: Object.assign(new EventEmitter(), { usdc: config.usdc, epoch: 'bench' }),
    stop: async () => {},
  } as unknown as ChainServices
  const server = await startServer({ chain, autoVerify: true, log: () => {} })
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`)
  stop = () => server.stop()
} else {
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: config.facilitatorUrl })).register(config.network, new ExactEvmScheme())
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.use(
    paymentMiddleware(
      {
        [config.route]: {
          accepts: { scheme: 'exact', network: config.network, payTo: config.payTo, price: config.price, maxTimeoutSeconds: 300 },
          description: 'Weather now',
          mimeType: 'application/json',
          extensions: declareDiscoveryExtension({ output: { example: { city: 'string', temp: 1 }, schema: config.responseSchema } }),
        },
      },
      resourceServer,
    ),
  )
  const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 })
  const upstream = new URL(config.upstreamUrl)
  const skip = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'payment-signature', 'x-payment', 'expect'])
  app.use(async (req, res) => {
    const headers: Record<string, string | string[]> = {}
    for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !skip.has(name)) headers[name] = value
    const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined
    try {
      const answer = await agent.request({ origin: upstream.origin, path: req.originalUrl, method: req.method as 'GET', headers, body: hasBody ? req : null, headersTimeout: 30_000, bodyTimeout: 30_000 })
      res.status(answer.statusCode)
      for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !skip.has(name)) res.setHeader(name, value)
      answer.body.pipe(res)
    } catch (error) {
      res.status(502).json({ error: (error as Error).message })
    }
  })
  const listening = await listen(app)
  process.stdout.write(`${JSON.stringify({ port: listening.port })}\n`)
  stop = async () => {
    await listening.close()
    await agent.close()
  }
}

process.once('SIGTERM', () => {
  stop().finally(() => process.exit(0))
})
