/**
 * Issue 11's paid-path figures, svc beside the reference stack (stacks.ts), measured in one run, in rounds that
 * alternate which stack goes first, each figure the median of its rounds:
 * - unpaid 402s per second at `concurrency` keep-alive connections (unpaid-pair.ts);
 * - sequential paid latency (p50, p95) through the official `@x402/fetch` client, the stacks interleaved payment by
 *   payment;
 * - paid requests per second with `buyers` concurrent buyers (each a key of its own), and the slowest of them (a
 *   settlement stall shows there);
 * - RSS of svc's process tree (its Node process, Anvil and Anvil's watchdog) idle and at its peak under paid load;
 * - every delivered answer reconciled with the chain's Transfer and AuthorizationUsed logs, and Anvil's pool at the end.
 */
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { Hex } from 'viem'
import { percentile, round, runPool } from './pool.js'
import { treeRssMb } from './process-tree.js'
import { getBlockNumber, readPool, reconcile, startLogCollector } from './reconcile.js'
import { startReferenceStack, startSvcStack, weatherPrice, type Stack, type StackName } from './stacks.js'
import { sumCpu, unpaidPairRounds } from './unpaid-pair.js'

export type PaidBenchOptions = {
  /** Rounds per figure. @defaultValue 3 */
  rounds?: number
  /** Unpaid requests per stack and round. @defaultValue 5_000 */
  unpaidRequests?: number
  /** Connections of the unpaid load. @defaultValue 32 */
  concurrency?: number
  /** Sequential payments per stack and round. @defaultValue 60 */
  sequentialPayments?: number
  /** Concurrent payments per stack and round. @defaultValue 300 */
  paidPayments?: number
  /** Concurrent buyers. @defaultValue 16 */
  buyers?: number
  /** Run after the paid load, with both stacks still up (the chain limit on svc's running chain). */
  afterLoad?: ((svc: Stack) => Promise<void>) | undefined
  progress?: (line: string) => void
}

type Side = { svc: number[]; reference: number[] }
const sides = (): Side => ({ svc: [], reference: [] })
const median = (values: number[]) => percentile(values, 50)

/** A payment not answered by then counts as failed ("threw … timeout"): a stalled settlement must not hang the run. */
const paymentTimeoutMs = 30_000

/** Payment outcome of one request: the transaction of a delivered answer, or why it failed. */
export async function payOnce(
  pay: typeof fetch,
  url: string,
): Promise<{ ok: true; transaction: Hex } | { ok: false; why: string }> {
  try {
    const response = await pay(url, { signal: AbortSignal.timeout(paymentTimeoutMs) })
    const text = await response.text()
    const header = response.headers.get('payment-response')
    const settled = header === null ? undefined : decodePaymentResponseHeader(header)
    if (response.status === 200 && settled?.success) return { ok: true, transaction: settled.transaction as Hex }
    return { ok: false, why: `${response.status} ${text.slice(0, 160)}` }
  } catch (error) {
    return { ok: false, why: `threw ${(error as Error).message.slice(0, 160)}` }
  }
}

/** Samples the RSS of svc's process tree while `active()` is true; `peak` is the largest total seen. */
function startRssSampler(pid: number, everyMs = 50) {
  let active = false
  let peak = { total_mb: 0, by_process: {} as Record<string, number> }
  const timer = setInterval(() => {
    if (!active) return
    const now = treeRssMb(pid)
    if (now.total_mb > peak.total_mb) peak = now
  }, everyMs)
  return {
    set: (on: boolean) => void (active = on),
    peak: () => peak,
    stop: () => clearInterval(timer),
  }
}

export async function benchPaid(options: PaidBenchOptions = {}) {
  const {
    rounds = 3,
    unpaidRequests = 5_000,
    concurrency = 32,
    sequentialPayments = 60,
    paidPayments = 300,
    buyers = 16,
    afterLoad,
    progress = () => {},
  } = options
  progress('paid bench: starting svc (svc up --seed fixtures/demo-seed.yaml) and the reference stack')
  const svc = await startSvcStack()
  const reference = await startReferenceStack().catch(async (error) => {
    await svc.stop()
    throw error
  })
  const _stacks = { svc, reference } as Record<StackName, Stack>
  const order = (round: number): Stack[] => (round % 2 === 0 ? [svc, reference] : [reference, svc])
  const sampler = startRssSampler(svc.pids[0]!)
  try {
    const logs = {
      svc: startLogCollector(
        svc.rpcUrl,
        svc.usdc.address,
        svc.payTo,
        BigInt(weatherPrice),
        (await getBlockNumber(svc.rpcUrl)) + 1n,
      ),
      reference: startLogCollector(
        reference.rpcUrl,
        reference.usdc.address,
        reference.payTo,
        BigInt(weatherPrice),
        (await getBlockNumber(reference.rpcUrl)) + 1n,
      ),
    }
    const delivered = { svc: [] as Hex[], reference: [] as Hex[] }
    const failures = { svc: {} as Record<string, number>, reference: {} as Record<string, number> }
    const pay = async (stack: Stack, buyer: typeof fetch) => {
      const outcome = await payOnce(buyer, stack.url)
      if (outcome.ok) delivered[stack.name].push(outcome.transaction)
      else failures[stack.name][outcome.why] = (failures[stack.name][outcome.why] ?? 0) + 1
      return outcome.ok
    }
    const sequentialBuyer = { svc: await svc.newBuyer(), reference: await reference.newBuyer() }
    const concurrentBuyers = {
      svc: await Promise.all(Array.from({ length: buyers }, () => svc.newBuyer())),
      reference: await Promise.all(Array.from({ length: buyers }, () => reference.newBuyer())),
    }
    for (const stack of [svc, reference]) for (let i = 0; i < 10; i++) await pay(stack, sequentialBuyer[stack.name])
    // Idle: started, seeded, warmed up, then left alone for a moment.
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const idleRss = treeRssMb(svc.pids[0]!)

    progress('paid bench: unpaid 402s')
    const unpaid = await unpaidPairRounds(svc, reference, { rounds, requests: unpaidRequests, concurrency })

    progress('paid bench: sequential payments')
    sampler.set(true)
    const sequential = { p50: sides(), p95: sides(), ok: { svc: 0, reference: 0 } }
    for (let r = 0; r < rounds; r++) {
      const latencies = sides()
      for (let i = 0; i < sequentialPayments; i++)
        for (const stack of i % 2 === 0 ? order(r) : order(r).reverse()) {
          const t0 = performance.now()
          if (await pay(stack, sequentialBuyer[stack.name])) sequential.ok[stack.name]++
          latencies[stack.name].push(performance.now() - t0)
        }
      for (const name of ['svc', 'reference'] as const) {
        sequential.p50[name].push(percentile(latencies[name], 50))
        sequential.p95[name].push(percentile(latencies[name], 95))
      }
    }

    progress(`paid bench: ${buyers} concurrent buyers`)
    const concurrent = {
      rps: sides(),
      p50: sides(),
      max: sides(),
      cpuUs: sides(),
      ok: { svc: 0, reference: 0 },
      over2s: { svc: 0, reference: 0 },
    }
    for (let r = 0; r < rounds; r++)
      for (const stack of order(r)) {
        let next = 0
        const cpu0 = sumCpu(stack)
        const run = await runPool(Array.from({ length: paidPayments }), buyers, () =>
          pay(stack, concurrentBuyers[stack.name][next++ % buyers]!),
        )
        const ok = run.results.filter(Boolean).length
        concurrent.cpuUs[stack.name].push(((sumCpu(stack) - cpu0) * 1000) / ok)
        concurrent.ok[stack.name] += ok
        concurrent.rps[stack.name].push((ok / run.wallMs) * 1000)
        concurrent.p50[stack.name].push(percentile(run.latencies, 50))
        concurrent.max[stack.name].push(Math.max(...run.latencies))
        concurrent.over2s[stack.name] += run.latencies.filter((ms) => ms > 2_000).length
      }
    sampler.set(false)
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const idleAfterRss = treeRssMb(svc.pids[0]!)

    progress('paid bench: reconciling with the chain logs')
    const settlements = {
      svc: reconcile(await logs.svc.finish(), delivered.svc),
      reference: reconcile(await logs.reference.finish(), delivered.reference),
    }
    const pools_ = { svc: await readPool(svc.rpcUrl), reference: await readPool(reference.rpcUrl) }
    await afterLoad?.(svc)

    const figure = (values: Side, digits = 1) => ({
      svc: round(median(values.svc), digits),
      reference: round(median(values.reference), digits),
      ratio: round(median(values.svc) / median(values.reference), 2),
    })
    const perRound = (values: Side, digits = 1) => ({
      svc: values.svc.map((v) => round(v, digits)),
      reference: values.reference.map((v) => round(v, digits)),
    })
    return {
      setup: {
        rounds,
        unpaid_requests: unpaidRequests,
        concurrency,
        sequential_payments: sequentialPayments,
        paid_payments: paidPayments,
        buyers,
        svc_ready_ms: round(svc.readyMs),
      },
      unpaid_402: unpaid,
      paid_sequential: {
        p50_ms: figure(sequential.p50, 2),
        p95_ms: figure(sequential.p95, 2),
        ok: sequential.ok,
        rounds: { p50_ms: perRound(sequential.p50, 2), p95_ms: perRound(sequential.p95, 2) },
      },
      paid_concurrent: {
        per_second: figure(concurrent.rps),
        p50_ms: figure(concurrent.p50),
        max_ms: {
          svc: round(Math.max(...concurrent.max.svc)),
          reference: round(Math.max(...concurrent.max.reference)),
        },
        over_2s: concurrent.over2s,
        cpu_us_per_payment: figure(concurrent.cpuUs, 0),
        ok: concurrent.ok,
        rounds: perRound(concurrent.rps),
      },
      rss_mb: { idle: idleRss, peak: sampler.peak(), idle_after_load: idleAfterRss },
      settlements,
      pools: pools_,
      // How often a stuck settlement had to be re-sent on the reference's Anvil (svc's guard does it inside svc).
      reference_unstuck: await reference.unstuck(),
      failed_payments: failures,
    }
  } finally {
    sampler.stop()
    await reference.stop()
    await svc.stop()
  }
}
