/**
 * What stands in front of a cluster in its tests: a load balancer (round robin over the live processes, the Host
 * header the client's, a refused connection sent to the next process, as the README's Caddy site does), a seller's
 * production API made through one process, official `@x402/fetch` buyers, and the ledger as the seller reads it.
 */
import { createServer, type Server } from 'node:http'
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { fetchFrom, type ServeProcess } from './serve-process.js'

const direct = fetchFrom('127.0.0.1')

const refused = (error: unknown) => (error as { cause?: { code?: string } }).cause?.code === 'ECONNREFUSED'

/**
 * `fetch` through a round-robin load balancer over `processes` (read at each request, so a process started later
 * joins): every HTTP request goes to the next one, whatever the URL's port; a process that refuses the connection
 * (it is gone) is dropped and the request goes to the next. `servedBy` records which process's port answered a paid
 * request (by its PAYMENT-RESPONSE transaction).
 */
export function loadBalancer(processes: ServeProcess[]) {
  const down = new Set<ServeProcess>()
  const servedBy = new Map<string, number>()
  let turn = 0
  const balanced = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const request = new Request(input, init)
    for (;;) {
      const live = processes.filter((svc) => !down.has(svc))
      if (live.length === 0) throw new Error('load balancer: no process is up')
      const svc = live[turn++ % live.length]!
      const url = new URL(request.url)
      url.port = String(svc.ready.port)
      try {
        const response = await direct(url.toString(), { method: request.method, headers: request.headers })
        const header = response.headers.get('payment-response')
        if (header) servedBy.set(decodePaymentResponseHeader(header).transaction, svc.ready.port)
        return response
      } catch (error) {
        // Anything but a refused connection (a process that died under the request) is the client's to see.
        if (!refused(error)) throw error
        down.add(svc)
      }
    }
  }) as typeof fetch
  return { fetch: balanced, servedBy }
}

/** An upstream on 127.0.0.3 (a range the cluster is told to allow) that answers every GET with its path. */
export async function startUpstream(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) =>
    res.setHeader('content-type', 'application/json').end(JSON.stringify({ ok: req.url })),
  )
  server.listen(0, '127.0.0.3')
  await once(server, 'listening')
  return { url: `http://127.0.0.3:${(server.address() as AddressInfo).port}`, server }
}

export type ProductionApi = {
  token: string
  /** `http://{slug}.{platform domain}/…`: the Host a load balancer passes on. */
  url: string
  payTo: `0x${string}`
  amount: bigint
}

/**
 * Signs a seller up through `svc` and creates a production API with one GET endpoint priced `amount` of the chain's
 * USDC (its EIP-712 domain named, as a production accept must), paid to a fresh address.
 */
export async function createProductionApi(
  svc: ReadyProcess,
  options: {
    network: string
    usdc: string
    upstreamUrl: string
    amount?: bigint
    maxTimeoutSeconds?: number
  },
): Promise<ProductionApi> {
  const { amount = 1000n, maxTimeoutSeconds = 20 } = options
  const control = controlOf(svc)
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await direct(`${control}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    })
    const json = (await response.json()) as any
    if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(json)}`)
    return json
  }
  const { token } = await post('/auth/signup', { email: 'ops@pay.example.com', password: 'a-long-password' })
  const payTo = privateKeyToAccount(generatePrivateKey()).address
  const api = await post(
    '/apis',
    {
      name: 'Shop',
      slug: 'shop',
      upstream_base_url: options.upstreamUrl,
      pay_to_mode: 'user_wallet',
      pay_to_address: payTo,
    },
    token,
  )
  const accept = {
    scheme: 'exact',
    network: options.network,
    asset: options.usdc,
    amount: String(amount),
    max_timeout_seconds: maxTimeoutSeconds,
    extra: { name: 'USDC', version: '2' },
  }
  await post(
    `/apis/${api.id}/endpoints`,
    {
      method: 'GET',
      path_pattern: '/forecast',
      accepts: [accept],
      request_schema: null,
      response_schema: { type: 'object' },
    },
    token,
  )
  return { token, url: `http://shop.${svc.ready.platform_domain}/forecast`, payTo, amount }
}

/** A `svc serve` or a `svc up` child, by its ready line. */
export type ReadyProcess = { ready: Record<string, any> }

/** The port a process listens on (`svc serve`'s `port`, `svc up`'s `gateway_port`). */
export const portOf = (svc: ReadyProcess): number => svc.ready.port ?? svc.ready.gateway_port

/** The control plane of `svc` on its own port (behind the proxy its URLs say https, without a port). */
export const controlOf = (svc: ReadyProcess) => `http://api.${svc.ready.platform_domain}:${portOf(svc)}`

/** `count` buyers, each an official `@x402/fetch` over `via`, spending at most 1 USDC a payment on `network`. */
export function newBuyers(count: number, network: string, usdc: string, via: typeof fetch) {
  return Array.from({ length: count }, () => {
    const account: PrivateKeyAccount = privateKeyToAccount(generatePrivateKey())
    const client = new x402Client().register(network as `${string}:${string}`, new ExactEvmScheme(account))
    client.setSpendControls({
      allowedAssets: [{ network: network as `${string}:${string}`, asset: usdc, maxAmountPerPayment: '1000000' }],
    })
    return { account, pay: wrapFetchWithPayment(via, client) }
  })
}

export type LedgerRow = { transaction: string; payer: string; delivered: boolean; amount: string }

/** The seller's production settlements, every page, read through `svc`. */
export async function readLedger(svc: ReadyProcess, token: string): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = []
  let cursor: string | null = null
  do {
    const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const response = await direct(`${controlOf(svc)}/settlements?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const page = (await response.json()) as { settlements: LedgerRow[]; next_cursor: string | null }
    if (!response.ok) throw new Error(`GET /settlements: ${response.status} ${JSON.stringify(page)}`)
    rows.push(...page.settlements)
    cursor = page.next_cursor
  } while (cursor)
  return rows
}

/** `fetch` straight to the named host on its process's port (a client of one process, as the listener is). */
export { direct as fetchDirect }
