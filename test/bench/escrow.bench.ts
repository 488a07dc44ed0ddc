/**
 * Issue 39's figures (escrow payments, x402 `auth-capture`), on one `svc up --seed fixtures/demo-seed.yaml`:
 * - sync: an authorize + sync capture request (two transactions in one request: the hold, then its capture after the
 *   upstream answered) beside svc's own `exact` payment, sequential, through svc's gateway with the official client
 *   (`@x402/fetch` with `ExactEvmScheme` / `AuthCaptureEvmScheme`), in rounds that alternate which goes first; p50 and
 *   p95 of each and the ratio of the p50s (target ≤ 2×), with the CPU each kind cost svc (its Node process, and with
 *   its Anvil) per request;
 * - deferred: `captures` payments held (untimed), then the seller's captures through the control plane
 *   (`client.payments.capture` of the SDK, one after another as a seller's script does) timed (target ≤ 10 s for 100),
 *   and as many held again and captured 8 at a time.
 * Buyers and seller run in this process; svc and they share the machine (its load average is in the report).
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { loadavg } from 'node:os'
import type { Address } from 'viem'
import { createSvcClient } from '../../sdk/client.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { newAccount } from '../helpers/payments.js'
import { percentile, round, runPool } from './pool.js'
import { processCpuMs, treeCpuMs } from './processes.js'
import { startSvcStack } from './stacks.js'

export type EscrowBenchOptions = {
  /** Sequential payments of each kind (exact, auth-capture sync) over all rounds. @defaultValue 200 */
  payments?: number
  /** Rounds the sequential payments are split into, alternating which kind goes first. @defaultValue 10 */
  rounds?: number
  /** Deferred payments the seller captures (sequentially, then as many 8 at a time). @defaultValue 100 */
  captures?: number
  /** Concurrent captures of the second deferred batch (0: none). @defaultValue 8 */
  concurrency?: number
  /** Node options of svc's process (`--cpu-prof`, …). */
  svcNodeArgs?: string[]
  progress?: (line: string) => void
}

/** The escrow APIs' price (0.01 USDC, as the demo's `exact` weather) and their pay-to address. */
const price = '10000'
const escrowPayTo: Address = '0x00000000000000000000000000000000000e5c01'
const median = (values: number[]) => percentile(values, 50)

/** One paid request through `pay`; throws unless it was answered 200 with a successful PAYMENT-RESPONSE. */
async function paid(pay: typeof fetch, url: string) {
  const response = await pay(url, { signal: AbortSignal.timeout(30_000) })
  const text = await response.text()
  const header = response.headers.get('payment-response')
  if (response.status !== 200 || header === null || !decodePaymentResponseHeader(header).success)
    throw new Error(`${url} answered ${response.status}: ${text.slice(0, 200)}`)
}

export async function benchEscrow(options: EscrowBenchOptions = {}) {
  const { payments = 200, rounds = 10, captures = 100, concurrency = 8, progress = () => {} } = options
  const load = () => Number(loadavg()[0]!.toFixed(2))
  const loadBefore = load()
  progress('escrow bench: starting svc (svc up --seed fixtures/demo-seed.yaml)')
  const svc = await startSvcStack({ nodeArgs: options.svcNodeArgs ?? [] })
  try {
    const seller = createSvcClient({
      baseUrl: svc.ready.sandbox_control_url,
      jwt: svc.ready.seed.jwt,
      environment: 'development',
    })
    const weather = (await seller.apis.list()).find((api) => api.slug === 'weather')!
    /** A development API in front of the demo upstream, its GET /weather/{city} paid by auth-capture only. */
    const escrowApi = async (slug: string, captureMode: 'sync' | 'deferred') => {
      const api = await seller.apis.create({
        name: slug,
        slug,
        upstream_base_url: weather.upstream_base_url,
        pay_to_mode: 'user_wallet',
        pay_to_address: escrowPayTo,
      })
      await seller.endpoints.create(api.id, {
        method: 'GET',
        path_pattern: '/weather/{city}',
        accepts: [
          {
            scheme: 'auth-capture',
            network: svc.network,
            asset: svc.usdc.address,
            amount: price,
            extra: { captureMode },
          },
        ],
      })
      return { id: api.id, url: `${new URL(api.gateway_url).origin}/weather/paris` }
    }
    const syncApi = await escrowApi('escrow-sync', 'sync')
    const deferredApi = await escrowApi('escrow-deferred', 'deferred')

    /** A new funded buyer paying with the official client and `scheme` (as startSandbox's buyer does). */
    const buyer = async (scheme: 'exact' | 'auth-capture') => {
      const account = newAccount()
      await svc.fund(account.address)
      const client = new x402Client().register(
        svc.network,
        scheme === 'exact' ? new ExactEvmScheme(account) : new AuthCaptureEvmScheme(account),
      )
      client.setSpendControls({
        allowedAssets: [{ network: svc.network, asset: svc.usdc.address, maxAmountPerPayment: price }],
      })
      return wrapFetchWithPayment(localFetch, client)
    }
    const payers = { exact: await buyer('exact'), sync: await buyer('auth-capture') }
    const deferredPayer = await buyer('auth-capture')
    const urls = { exact: svc.url, sync: syncApi.url }

    const svcPid = svc.pids[0]!
    const latencies = { exact: [] as number[], sync: [] as number[] }
    const cpu = { exact: { svc: 0, tree: 0 }, sync: { svc: 0, tree: 0 } }
    /** `count` sequential payments of `kind`, each one's latency kept, and the CPU svc spent on them. */
    const sequential = async (kind: 'exact' | 'sync', count: number, keep = true) => {
      const before = { svc: processCpuMs(svcPid), tree: treeCpuMs(svcPid) }
      for (let i = 0; i < count; i++) {
        const t0 = performance.now()
        await paid(payers[kind], urls[kind])
        if (keep) latencies[kind].push(performance.now() - t0)
      }
      if (!keep) return
      cpu[kind].svc += processCpuMs(svcPid) - before.svc
      cpu[kind].tree += treeCpuMs(svcPid) - before.tree
    }
    // Warm-up of both paths (the JIT, the connections, the seller's receiver authorizer), untimed.
    progress('escrow bench: warm-up')
    await sequential('exact', 20, false)
    await sequential('sync', 20, false)
    const perRound = Math.ceil(payments / rounds)
    for (let r = 0; r < rounds; r++) {
      progress(`escrow bench: round ${r + 1}/${rounds}, ${perRound} exact and ${perRound} auth-capture sync`)
      const order = r % 2 === 0 ? (['exact', 'sync'] as const) : (['sync', 'exact'] as const)
      for (const kind of order) await sequential(kind, perRound)
    }
    const count = perRound * rounds
    const p50 = { exact: median(latencies.exact), sync: median(latencies.sync) }
    const syncRatio = p50.sync / p50.exact
    const cpuPer = (kind: 'exact' | 'sync') => ({
      svc_ms: round(cpu[kind].svc / count, 2),
      svc_with_anvil_ms: round(cpu[kind].tree / count, 2),
    })

    /** `n` deferred payments held (untimed); their ids, as the seller lists them. */
    const hold = async (n: number) => {
      for (let i = 0; i < n; i++) await paid(deferredPayer, deferredApi.url)
      const held = await seller.payments.list({ api_id: deferredApi.id, state: 'authorized', limit: 1000 })
      if (held.length !== n) throw new Error(`escrow bench: ${held.length} payments held, ${n} expected`)
      return held.map((payment) => payment.id)
    }
    /** The seller's captures of `ids`, `inFlight` at a time: the wall time and each capture's latency. */
    const captureAll = async (ids: string[], inFlight: number) => {
      const run = await runPool(ids, inFlight, async (id) => {
        const moved = await seller.payments.capture(id)
        if (moved.payment.state !== 'captured') throw new Error(`escrow bench: ${id} is ${moved.payment.state}`)
      })
      const left = await seller.payments.list({ api_id: deferredApi.id, state: 'authorized', limit: 1000 })
      if (left.length) throw new Error(`escrow bench: ${left.length} payments still held after the captures`)
      return {
        seconds: round(run.wallMs / 1_000, 2),
        p50_ms: round(median(run.latencies), 1),
        p95_ms: round(percentile(run.latencies, 95), 1),
      }
    }
    progress(`escrow bench: ${captures} deferred payments held, then captured one after another`)
    const sequentialCaptures = await captureAll(await hold(captures), 1)
    let concurrentCaptures: Awaited<ReturnType<typeof captureAll>> | undefined
    if (concurrency > 1) {
      progress(`escrow bench: ${captures} more held, then captured ${concurrency} at a time`)
      concurrentCaptures = await captureAll(await hold(captures), concurrency)
    }

    return {
      load_average: { before: loadBefore, after: load() },
      sync: {
        payments_each: count,
        rounds,
        exact_p50_ms: round(p50.exact),
        exact_p95_ms: round(percentile(latencies.exact, 95)),
        auth_capture_p50_ms: round(p50.sync),
        auth_capture_p95_ms: round(percentile(latencies.sync, 95)),
        ratio: round(syncRatio, 2),
        target_ratio: 2,
        exact_cpu_per_request: cpuPer('exact'),
        auth_capture_cpu_per_request: cpuPer('sync'),
      },
      deferred: {
        captures,
        sequential_seconds: sequentialCaptures.seconds,
        sequential_p50_ms: sequentialCaptures.p50_ms,
        sequential_p95_ms: sequentialCaptures.p95_ms,
        ...(concurrentCaptures && {
          concurrency,
          concurrent_seconds: concurrentCaptures.seconds,
          concurrent_p50_ms: concurrentCaptures.p50_ms,
        }),
        target_seconds: 10,
      },
      pass: syncRatio <= 2 && sequentialCaptures.seconds <= 10,
    }
  } finally {
    await svc.stop()
  }
}
