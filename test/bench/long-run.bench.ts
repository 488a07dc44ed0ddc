/**
 * Issue 11's long run: one sandbox (`svc up --seed fixtures/demo-seed.yaml` with a data dir, so its chain is dumped
 * every 30 s as users run it) paid `payments` times by `buyers` concurrent buyers through `@x402/fetch`. The settle
 * rate of the first `window` payments against the rate of the `window` after `after` payments; the slowest payment
 * (a settlement stall) and how many waited over 2 s; Anvil's pool at the end; every answer reconciled with the
 * chain's logs; svc's RSS at its peak. Takes about `payments` / 100 seconds on a 2-core machine.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Hex } from 'viem'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { percentile, round, runPool } from './pool.js'
import { listProcessTree, rssKb, treeRssMb } from './process-tree.js'
import { getBlockNumber, readPool, reconcile, startLogCollector } from './reconcile.js'
import { startSvcStack, weatherPrice } from './stacks.js'

export type LongRunOptions = {
  /** @defaultValue 21_000 */
  payments?: number
  /** @defaultValue 16 */
  buyers?: number
  /** Payments per measured window. @defaultValue 1_000 */
  window?: number
  /** The later window starts after this many payments. @defaultValue 20_000 */
  after?: number
  progress?: (line: string) => void
}

export async function benchLongRun(options: LongRunOptions = {}) {
  const { payments = 21_000, buyers = 16, window = 1_000, after = 20_000, progress = () => {} } = options
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-long-run-'))
  const svc = await startSvcStack({ dataDir })
  try {
    const logs = startLogCollector(
      svc.rpcUrl,
      svc.usdc.address,
      svc.payTo,
      BigInt(weatherPrice),
      (await getBlockNumber(svc.rpcUrl)) + 1n,
    )
    const perBuyer = BigInt(Math.ceil(payments / buyers) + 10) * BigInt(weatherPrice)
    const wallets = await Promise.all(Array.from({ length: buyers }, () => svc.newBuyer(perBuyer)))
    const delivered: Hex[] = []
    const failures: Record<string, number> = {}
    /** When each delivered payment completed, ms since the start. */
    const done: number[] = []
    let peakRss = 0
    let anvilPeak = 0
    const anvilPid = listProcessTree(svc.pids[0]!).find((p) => p.name === 'anvil')?.pid
    const started = performance.now()
    let next = 0
    const run = await runPool(Array.from({ length: payments }), buyers, async () => {
      const buyer = wallets[next++ % buyers]!
      try {
        const response = await buyer(svc.url, { signal: AbortSignal.timeout(30_000) })
        const text = await response.text()
        const header = response.headers.get('payment-response')
        const settled = header === null ? undefined : decodePaymentResponseHeader(header)
        if (response.status === 200 && settled?.success) {
          delivered.push(settled.transaction as Hex)
          done.push(performance.now() - started)
          if (done.length % window === 0) {
            const rss = treeRssMb(svc.pids[0]!).total_mb
            peakRss = Math.max(peakRss, rss)
            anvilPeak = Math.max(anvilPeak, rssKb(anvilPid) / 1024)
            progress(
              `long run: ${done.length} payments, ${round(done.length / ((performance.now() - started) / 1000))}/s overall, RSS ${rss} MB`,
            )
          }
          return true
        }
        const why = `${response.status} ${text.slice(0, 160)}`
        failures[why] = (failures[why] ?? 0) + 1
      } catch (error) {
        const why = `threw ${(error as Error).message.slice(0, 160)}`
        failures[why] = (failures[why] ?? 0) + 1
      }
      return false
    })
    done.sort((a, b) => a - b)
    /** Payments per second over the `window` payments that completed after `from` others. */
    const rateFrom = (from: number) => {
      const last = Math.min(from + window, done.length) - 1
      return last > from ? round(((last - from) / (done[last]! - done[from]!)) * 1000) : Number.NaN
    }
    const windows = []
    for (let from = 0; from + window <= done.length; from += window) windows.push(rateFrom(from))
    const first = rateFrom(0)
    const later = rateFrom(after)
    const settlements = reconcile(await logs.finish(), delivered)
    return {
      payments,
      buyers,
      seconds: round(run.wallMs / 1000),
      first_window_per_second: first,
      [`after_${after}_per_second`]: later,
      later_to_first: round(later / first, 2),
      target_min_ratio: 0.9,
      pass: later / first >= 0.9,
      windows_per_second: windows,
      latency_ms: {
        p50: round(percentile(run.latencies, 50)),
        p95: round(percentile(run.latencies, 95)),
        max: round(Math.max(...run.latencies)),
      },
      over_2s: run.latencies.filter((ms) => ms > 2_000).length,
      pool: await readPool(svc.rpcUrl),
      settlements,
      rss_peak_mb: { total: peakRss, anvil: round(anvilPeak) },
      failed_payments: failures,
    }
  } finally {
    await svc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}
