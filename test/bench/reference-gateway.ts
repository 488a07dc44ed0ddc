/**
 * The reference stack's paid gateway, run as its own Node process (`node --import tsx reference-gateway.ts <config
 * JSON>`): express + `paymentMiddleware` of `@x402/express` with an `x402ResourceServer` on an `HTTPFacilitatorClient`
 * (the reference facilitator, another process), then a streaming proxy (undici) to the demo upstream, which this
 * process serves itself on a listener of its own, as `svc up --seed fixtures/demo-seed.yaml` does.
 * Prints one ready line `{"port": …}`; SIGTERM stops it.
 */
import '../../core/polyfill.js'
import express from 'express'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { Agent } from 'undici'
import { listen } from '../../core/http.js'
import { startDemoUpstream } from '../../fixtures/demo-upstream.js'

export type ReferenceGatewayConfig = {
  facilitatorUrl: string
  network: `${string}:${string}`
  payTo: string
  price: { amount: string; asset: string; extra: Record<string, unknown> }
  responseSchema: Record<string, unknown>
}

const config = JSON.parse(process.argv[2]!) as ReferenceGatewayConfig
const upstream = await startDemoUpstream()
const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: config.facilitatorUrl })).register(
  config.network,
  new ExactEvmScheme(),
)
const app = express()
app.disable('x-powered-by')
app.set('etag', false)
app.use(
  paymentMiddleware(
    {
      'GET /weather/*': {
        accepts: {
          scheme: 'exact',
          network: config.network,
          payTo: config.payTo,
          price: config.price,
          maxTimeoutSeconds: 300,
        },
        description: "Today's forecast for a city",
        mimeType: 'application/json',
        extensions: declareDiscoveryExtension({
          output: { example: { city: 'paris', forecast: 'sunny', temperature_c: 1 }, schema: config.responseSchema },
        }),
      },
    },
    resourceServer,
  ),
)
const agent = new Agent({ keepAliveTimeout: 10_000, connections: 256 })
const origin = new URL(upstream.url).origin
const skip = new Set([
  'host',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'payment-signature',
  'x-payment',
  'expect',
])
app.use(async (req, res) => {
  const headers: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(req.headers))
    if (value !== undefined && !skip.has(name)) headers[name] = value
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined
  try {
    const answer = await agent.request({
      origin,
      path: req.originalUrl,
      method: req.method as 'GET',
      headers,
      body: hasBody ? req : null,
      headersTimeout: 30_000,
      bodyTimeout: 30_000,
    })
    res.status(answer.statusCode)
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !skip.has(name)) res.setHeader(name, value)
    answer.body.pipe(res)
  } catch (error) {
    res.status(502).json({ error: (error as Error).message })
  }
})
const listening = await listen(app)
process.stdout.write(`${JSON.stringify({ port: listening.port })}\n`)
process.once('SIGTERM', () => {
  Promise.all([listening.close(), upstream.close(), agent.close()]).finally(() => process.exit(0))
})
