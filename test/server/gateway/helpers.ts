import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { Address, LocalAccount } from 'viem'
import { startChainServices, type ChainServices, type StartChainServicesOptions } from '../../../chain/services.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { SettlementRow } from '../../../server/db/tables.js'
import type { PaidRouteLimits } from '../../../server/deps.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import { createPermit2Kit, type Permit2Kit } from './permit2-kit.js'

/** The official buyer's client: `x402Client` with the exact EVM scheme, allowed to pay the sandbox USDC. */
export function buyerClient(
  services: ChainServices,
  buyer: LocalAccount,
  maxAmountPerPayment = '10000000',
): x402Client {
  const client = new x402Client().register('eip155:845320402', new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: 'eip155:845320402', asset: services.sandboxChain.usdc.address, maxAmountPerPayment }],
  })
  return client
}

/** `wrapFetchWithPayment` around `localFetch` for `buyer`. */
export function payingFetch(services: ChainServices, buyer: LocalAccount): typeof fetch {
  return wrapFetchWithPayment(localFetch, buyerClient(services, buyer))
}

/** Probes `url` for its 402 and signs a payment for it: the PAYMENT-SIGNATURE header value. */
export async function signedPaymentFor(
  services: ChainServices,
  buyer: LocalAccount,
  url: string,
  method = 'GET',
): Promise<string> {
  const probe = await localFetch(url, { method })
  await probe.arrayBuffer()
  if (probe.status !== 402) throw new Error(`expected a 402 from ${url}, got ${probe.status}`)
  const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
  return encodePaymentSignatureHeader(await buyerClient(services, buyer).createPaymentPayload(required))
}

/** The `error` of a JSON error answer. */
export const errorOf = async (response: Response): Promise<string> =>
  ((await response.json()) as { error: string }).error

export const usdcBalance = (services: ChainServices, address: Address) =>
  services.sandboxChain.client.readContract({
    address: services.sandboxChain.usdc.address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })

export type UpstreamCall = { method: string; url: string; headers: IncomingHttpHeaders; body: string; chunks: number }

/**
 * A real upstream on port 0: `/echo…` answers what it received, `/status/{code}` answers that status, `/slow`
 * never answers in time, `/delay/{ms}` answers late, `/bytes/{n}` answers a large body, `/weather/{city}` answers a
 * forecast, `/metered/{amount}` answers with `Settlement-Overrides: {"amount": amount}`, anything else 404. Every request is recorded.
 */
export async function startUpstream(): Promise<{
  url: string
  calls: UpstreamCall[]
  live: { body: string }
  server: Server
  stop(): Promise<void>
}> {
  const calls: UpstreamCall[] = []
  /** The body of the request being received, as it arrives. */
  const live = { body: '' }
  const server = createServer((req, res) => {
    let body = ''
    let chunks = 0
    req.setEncoding('utf8')
    live.body = ''
    req.on('data', (chunk: string) => {
      body += chunk
      live.body = body
      chunks++
    })
    req.on('end', () => {
      const call = { method: req.method!, url: req.url!, headers: req.headers, body, chunks }
      calls.push(call)
      const path = req.url!.split('?')[0]!
      const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value))
      if (path.startsWith('/echo'))
        return json(
          200,
          { method: call.method, url: call.url, body, chunks, headers: req.headers },
          { 'x-upstream': 'yes', 'keep-alive': 'timeout=5' },
        )
      if (path.startsWith('/status/')) return json(Number(path.slice(8)), { error: `status ${path.slice(8)}` })
      if (path === '/slow') return void setTimeout(() => json(200, { late: true }), 5_000).unref()
      if (path.startsWith('/delay/'))
        return void setTimeout(() => json(200, { delayed: true }), Number(path.slice(7))).unref()
      if (path.startsWith('/bytes/')) return json(200, { blob: 'x'.repeat(Number(path.slice(7))) })
      if (path.startsWith('/weather/')) return json(200, { city: decodeURIComponent(path.slice(9)), temp: 21.5 })
      if (path.startsWith('/files/')) return json(200, { file: path.slice(7) })
      // Metered: the upstream says what the request used, for an upto payment (x402's Settlement-Overrides header).
      if (path.startsWith('/metered/'))
        return json(
          200,
          { used: decodeURIComponent(path.slice(9)) },
          { 'settlement-overrides': JSON.stringify({ amount: decodeURIComponent(path.slice(9)) }) },
        )
      json(404, { error: 'no such upstream route' })
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    live,
    server,
    async stop() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
}

export type Seller = { jwt: string; userId: string; payTo: Address }
export type Api = { id: string; slug: string; gateway: string }

let slugs = 0

/** A verified seller with a fresh pay-to address. */
export async function newSeller(t: TestServer): Promise<Seller> {
  const { jwt, userId } = await t.signup()
  return { jwt, userId, payTo: newAccount().address }
}

/** Creates an API for the seller; development (Sandbox) unless told. */
export async function createApi(
  t: TestServer,
  seller: Seller,
  upstreamUrl: string,
  environment: 'production' | 'development' = 'development',
): Promise<Api> {
  const slug = `gw-${process.pid}-${++slugs}`
  const body = {
    name: `Gateway test ${slugs}`,
    slug,
    upstream_base_url: upstreamUrl,
    pay_to_mode: 'user_wallet',
    pay_to_address: seller.payTo,
  }
  const { status, body: api } = await t.call('/apis', { jwt: seller.jwt, environment, body })
  if (status !== 201) throw new Error(`creating the API failed: ${status} ${JSON.stringify(api)}`)
  return { id: api.id, slug, gateway: t.gatewayUrl(slug, environment) }
}

/** Sandbox accept option: `amount` atomic units of the sandbox USDC. */
export const sandboxAccept = (services: ChainServices, amount = '10000') => ({
  scheme: 'exact',
  network: 'eip155:845320402',
  asset: services.sandboxChain.usdc.address,
  amount,
  max_timeout_seconds: 300,
})

/** Adds an endpoint (schemas given, so nothing probes the upstream) and returns its record. */
export async function addEndpoint(
  t: TestServer,
  seller: Seller,
  apiId: string,
  endpoint: {
    method: string
    path_pattern: string
    accepts: unknown[]
    ttl?: number
    payment_identifier_required?: boolean
    request_schema?: unknown
    response_schema?: unknown
    description?: string
  },
  environment: 'production' | 'development' = 'development',
): Promise<any> {
  const body = { request_schema: { type: 'object' }, response_schema: { type: 'object' }, ...endpoint }
  const { status, body: record } = await t.call(`/apis/${apiId}/endpoints`, { jwt: seller.jwt, environment, body })
  if (status !== 201) throw new Error(`creating the endpoint failed: ${status} ${JSON.stringify(record)}`)
  return record
}

export type GatewayStack = {
  services: ChainServices
  t: TestServer
  upstream: Awaited<ReturnType<typeof startUpstream>>
  /** A buyer holding 100 USDC. */
  buyer: LocalAccount
  /** A new seller's development API with one GET endpoint at `path_pattern` taking `accepts`. */
  apiWith(path_pattern: string, accepts: unknown[]): Promise<{ seller: Seller; api: Api }>
  /** An API's settlement rows, oldest first. */
  settlementsOf(apiId: string): Promise<SettlementRow[]>
  stop(): Promise<void>
}

/** A stack started with `permit2: true`: its `permit2` kit (permit2-kit.ts) beside the stack's own helpers. */
export type Permit2GatewayStack = GatewayStack & {
  permit2: Permit2Kit & Pick<GatewayStack, 'apiWith' | 'settlementsOf'>
}

export type GatewayStackOptions = {
  /** Options of the chain services (e.g. a short `healthIntervalMs`). */
  chain?: StartChainServicesOptions
  /** Lower limits of the paid routes, e.g. an upstream deadline a test can wait for (30 s in svc). */
  paidRoutes?: PaidRouteLimits
  /** Adds `permit2`: buyers paying through Permit2 with the official client, the Permit2 accepts, the allowance. */
  permit2?: boolean
}

/** The chain services, a test server on them, a recording upstream and a funded buyer: what a gateway test file starts. */
export async function startGatewayStack(options: GatewayStackOptions & { permit2: true }): Promise<Permit2GatewayStack>
export async function startGatewayStack(options?: GatewayStackOptions): Promise<GatewayStack>
export async function startGatewayStack(options: GatewayStackOptions = {}): Promise<GatewayStack> {
  const services = await startChainServices(options.chain)
  const t = await startTestServer({ chain: services, paidRoutes: options.paidRoutes })
  const upstream = await startUpstream()
  const buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '100')
  const apiWith = async (path_pattern: string, accepts: unknown[]) => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern, accepts })
    return { seller, api }
  }
  const settlementsOf = (apiId: string) =>
    t.server.database.db
      .selectFrom('settlements')
      .selectAll()
      .where('api_id', '=', apiId)
      .orderBy('created_at')
      .execute()
  return {
    services,
    t,
    upstream,
    buyer,
    apiWith,
    settlementsOf,
    ...(options.permit2 ? { permit2: { ...createPermit2Kit(services), apiWith, settlementsOf } } : {}),
    async stop() {
      await t.stop()
      await upstream.stop()
      await services.stop()
    },
  }
}
