/**
 * Where a sequential paid request spends its time on svc, measured rather than guessed: the sandbox of
 * `svc up --seed fixtures/demo-seed.yaml` started in this process (server/start/start-svc.ts, the same composition root), one
 * buyer paying `weather.dev.localhost/weather/paris` through `@x402/fetch` `payments` times in a row, with timing hooks
 * on what the request goes through (wall time; the buyer's own work is counted apart):
 * - every `fetch`: the gateway's calls to its own facilitator (`/verify`, `/settle` over HTTP) and every JSON-RPC call
 *   to Anvil by method (viem's http transport), with the time each took;
 * - the official facilitator's `verify` and `settle` inside the facilitator process part, and the HTTP overhead
 *   around them (the call seen by the gateway minus the work inside);
 * - the upstream hop (undici `Agent.request` of the proxy), SQLite statements (better-sqlite3), `JSON.parse` and
 *   `JSON.stringify`;
 * - the receipt wait: from the transaction sent to its receipt in hand, and the receipt reads it took.
 * Runs with `--cpu-prof` give the CPU side (cpu-profile.ts summarises them by package).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Facilitator } from '@x402/core/facilitator'
import SQLite from 'better-sqlite3'
import { Agent, Pool } from 'undici'
import { readSeedFile, parseSeed, applySeed } from '../../sdk/seed.js'
import { startSvc } from '../../server/start/index.js'
import { percentile, round } from './pool.js'
import { summariseCpuProfile } from './cpu-profile.js'
import { demoSeed, startSvcStack, weatherPayTo, weatherPrice } from './stacks.js'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { createSvcClient } from '../../sdk/client.js'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { localFetch } from '../../sdk/local-fetch.js'
import { newAccount } from '../helpers/payments.js'

type Span = { kind: string; ms: number; at: number }

/** The pay-to address of the auth-capture route. */
const escrowPayTo = '0x00000000000000000000000000000000000e5c01'

/** Wraps `object[name]` (a function) so each call's wall time is recorded as `kind(args)`. */
function timeMethod<T extends object>(
  object: T,
  name: keyof T & string,
  kindOf: (args: unknown[]) => string | undefined,
  spans: Span[],
  enabled: () => boolean,
) {
  const original = object[name] as unknown as (...args: unknown[]) => unknown
  ;(object as Record<string, unknown>)[name] = function (this: unknown, ...args: unknown[]) {
    if (!enabled()) return original.apply(this, args)
    const kind = kindOf(args)
    const t0 = performance.now()
    const done = () => kind && spans.push({ kind, ms: performance.now() - t0, at: t0 })
    const result = original.apply(this, args)
    if (result instanceof Promise) return result.finally(done)
    done()
    return result
  }
  return () => void ((object as Record<string, unknown>)[name] = original)
}

const parseJson = JSON.parse

export async function benchProfile(
  options: {
    payments?: number
    warmup?: number
    /** `auth-capture`: the same request on an escrow route (sync capture) of its own, paid with AuthCaptureEvmScheme. */
    scheme?: 'exact' | 'auth-capture'
  } = {},
) {
  const { payments = 200, warmup = 20, scheme = 'exact' } = options
  const spans: Span[] = []
  let on = false
  const enabled = () => on
  const seedFile = readSeedFile(demoSeed)
  const sandbox = await startSvc({ mode: 'up', port: 0, autoVerify: true, demoUpstream: true })
  const undo: (() => void)[] = []
  try {
    const seed = await applySeed(parseSeed(seedFile, { demo_upstream: sandbox.demoUpstreamUrl }), {
      controlUrl: sandbox.server.controlUrl,
      sandboxControlUrl: sandbox.server.sandboxControlUrl,
    })
    const { rpcUrl, facilitatorUrl, chainManagerUrl } = sandbox.chain
    const weather = seed.apis.find((api) => api.slug === 'weather')!
    const network = sandbox.chain.sandboxChain.network
    const asset = sandbox.chain.sandboxChain.usdc.address
    const url = `${scheme === 'exact' ? weather.gateway_url : await escrowRoute(sandbox.server.sandboxControlUrl, seed.jwt, { network, asset })}/weather/paris`

    // JSON-RPC by method (a batch counts each of its calls): svc's calls go out on undici Pools (chain/relay/anvil-rpc.ts),
    // anything else through fetch; fetch also reaches the facilitator over HTTP and the chain manager.
    const rpcCalls: Record<string, number> = {}
    const rpcKind = (body: unknown) => {
      const calls = typeof body === 'string' ? (parseJson(body) as { method: string } | { method: string }[]) : []
      const methods = (Array.isArray(calls) ? calls : [calls]).map((call) => call.method)
      // The pool guard's look at the pool is not part of a payment.
      if (methods.length === 1 && methods[0] === 'txpool_status') return undefined
      for (const method of methods) rpcCalls[method] = (rpcCalls[method] ?? 0) + 1
      return `rpc ${methods.length > 1 ? `batch(${methods.join(',')})` : methods[0]}`
    }
    undo.push(
      timeMethod(
        globalThis,
        'fetch',
        (args) => {
          const target = String(args[0] instanceof Request ? args[0].url : args[0])
          if (target.startsWith(facilitatorUrl)) return `facilitator HTTP ${new URL(target).pathname}`
          if (!target.startsWith(rpcUrl)) return target.startsWith(chainManagerUrl) ? 'chain manager' : undefined
          return rpcKind((args[1] as RequestInit | undefined)?.body)
        },
        spans,
        enabled,
      ),
    )
    undo.push(
      timeMethod(
        Pool.prototype as unknown as Record<string, unknown>,
        'request',
        (args) => rpcKind((args[0] as { body?: unknown }).body),
        spans,
        enabled,
      ),
    )
    undo.push(
      timeMethod(x402Facilitator.prototype, 'verify', () => 'facilitator verify (x402Facilitator)', spans, enabled),
    )
    undo.push(
      timeMethod(x402Facilitator.prototype, 'settle', () => 'facilitator settle (x402Facilitator)', spans, enabled),
    )
    undo.push(
      timeMethod(
        Agent.prototype as unknown as Record<string, unknown>,
        'request',
        () => 'upstream (undici Agent.request)',
        spans,
        enabled,
      ),
    )
    const statement = new SQLite(':memory:').prepare('select 1').constructor.prototype as Record<string, unknown>
    for (const method of ['run', 'get', 'all', 'iterate'])
      undo.push(timeMethod(statement, method, () => `sqlite ${method}`, spans, enabled))
    undo.push(timeMethod(JSON, 'parse', () => 'JSON.parse', spans, enabled))
    undo.push(timeMethod(JSON, 'stringify', () => 'JSON.stringify', spans, enabled))

    const buyer = newAccount()
    await fetch(`${chainManagerUrl}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: buyer.address, asset: 'usdc', amount: '100' }),
    })
    const client = new x402Client().register(
      network,
      scheme === 'exact' ? new ExactEvmScheme(buyer) : new AuthCaptureEvmScheme(buyer),
    )
    client.setSpendControls({ allowedAssets: [{ network, asset, maxAmountPerPayment: '10000' }] })
    // The buyer's own work (probe 402, signing) is timed apart: its fetch is the one with the PAYMENT-SIGNATURE.
    let paidRequestMs = 0
    const timedFetch: typeof fetch = async (input, init) => {
      const request = input instanceof Request ? input : undefined
      const paying = request?.headers.has('payment-signature') || new Headers(init?.headers).has('payment-signature')
      const t0 = performance.now()
      const response = await localFetch(input, init)
      if (paying) paidRequestMs = performance.now() - t0
      return response
    }
    const pay = wrapFetchWithPayment(timedFetch, client)
    const payOnce = async () => {
      const response = await pay(url)
      await response.arrayBuffer()
      if (response.status !== 200) throw new Error(`profile: a payment answered ${response.status}`)
    }
    for (let i = 0; i < warmup; i++) await payOnce()

    const perPayment: { total: number; paid: number; spans: Span[] }[] = []
    for (let i = 0; i < payments; i++) {
      spans.length = 0
      on = true
      const t0 = performance.now()
      await payOnce()
      const total = performance.now() - t0
      on = false
      perPayment.push({ total, paid: paidRequestMs, spans: [...spans] })
    }
    for (const restore of undo.reverse()) restore()
    undo.length = 0

    // Median over payments of each kind's summed time per payment, and how many calls of it a payment makes.
    const kinds = new Set(perPayment.flatMap((p) => p.spans.map((s) => s.kind)))
    const breakdown = [...kinds]
      .map((kind) => {
        const sums = perPayment.map((p) => p.spans.filter((s) => s.kind === kind).reduce((sum, s) => sum + s.ms, 0))
        const counts = perPayment.map((p) => p.spans.filter((s) => s.kind === kind).length)
        return {
          kind,
          median_ms_per_payment: round(percentile(sums, 50), 3),
          calls_per_payment: round(counts.reduce((a, b) => a + b, 0) / payments, 2),
        }
      })
      .sort((a, b) => b.median_ms_per_payment - a.median_ms_per_payment)
    // The receipt wait: from the transaction sent (eth_sendTransaction on svc's relay, eth_sendRawTransaction signed
    // here) to the receipt in hand (its own, or its block's read by the miner), the block mined between.
    const receiptWaits = perPayment.map((p) => {
      const sent = p.spans.find((s) => /eth_send(Raw)?Transaction/.test(s.kind))
      const receipts = p.spans.filter((s) => /eth_getTransactionReceipt|eth_getBlockReceipts/.test(s.kind))
      const last = receipts[receipts.length - 1]
      return sent && last
        ? { ms: last.at + last.ms - (sent.at + sent.ms), polls: receipts.length }
        : { ms: Number.NaN, polls: 0 }
    })
    return {
      payments,
      scheme,
      pay_to: scheme === 'exact' ? weatherPayTo : escrowPayTo,
      receipt_wait: {
        p50_ms: round(
          percentile(
            receiptWaits.map((w) => w.ms),
            50,
          ),
          2,
        ),
        polls_per_payment: round(receiptWaits.reduce((sum, w) => sum + w.polls, 0) / payments, 2),
      },
      total_ms: {
        p50: round(
          percentile(
            perPayment.map((p) => p.total),
            50,
          ),
          2,
        ),
        p95: round(
          percentile(
            perPayment.map((p) => p.total),
            95,
          ),
          2,
        ),
      },
      paid_request_ms: {
        p50: round(
          percentile(
            perPayment.map((p) => p.paid),
            50,
          ),
          2,
        ),
      },
      rpc_calls_per_payment: Object.fromEntries(
        Object.entries(rpcCalls).map(([method, count]) => [method, round(count / payments, 2)]),
      ),
      breakdown,
    }
  } finally {
    for (const restore of undo.reverse()) restore()
    await sandbox.stop()
  }
}

/**
 * An API of the seed's seller in front of the demo upstream, its GET /weather/{city} paid by auth-capture with a sync
 * capture (escrow.bench.ts's route): its gateway URL.
 */
async function escrowRoute(baseUrl: string, jwt: string, chain: { network: string; asset: string }) {
  const seller = createSvcClient({ baseUrl, jwt, environment: 'development' })
  const weather = (await seller.apis.list()).find((api) => api.slug === 'weather')!
  const api = await seller.apis.create({
    name: 'escrow-profile',
    slug: 'escrow-profile',
    upstream_base_url: weather.upstream_base_url,
    pay_to_mode: 'user_wallet',
    pay_to_address: escrowPayTo,
  })
  await seller.endpoints.create(api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [{ scheme: 'auth-capture', ...chain, amount: weatherPrice, extra: { captureMode: 'sync' } }],
  })
  return api.gateway_url
}

/**
 * The CPU side: `svc up --seed fixtures/demo-seed.yaml` run with `--cpu-prof`, paid `payments` times in a row by one
 * buyer from this process, then stopped (the profile is written at exit) and summarised by module.
 */
export async function benchCpuProfile(options: { payments?: number } = {}) {
  const { payments = 300 } = options
  const dir = mkdtempSync(join(tmpdir(), 'svc-cpu-prof-'))
  try {
    const svc = await startSvcStack({ nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] })
    let wallMs = 0
    try {
      const pay = await svc.newBuyer()
      for (let i = 0; i < 20; i++) await (await pay(svc.url)).arrayBuffer()
      const t0 = performance.now()
      for (let i = 0; i < payments; i++) {
        const response = await pay(svc.url)
        await response.arrayBuffer()
        if (response.status !== 200) throw new Error(`cpu profile: a payment answered ${response.status}`)
      }
      wallMs = performance.now() - t0
    } finally {
      await svc.stop()
    }
    const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'))
    if (!file) throw new Error('cpu profile: svc wrote no profile')
    return {
      payments,
      wall_ms: round(wallMs),
      ms_per_payment: round(wallMs / payments, 2),
      ...summariseCpuProfile(join(dir, file)),
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
