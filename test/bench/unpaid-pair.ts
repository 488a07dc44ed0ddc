/**
 * Issue 40's unpaid 402 figure: 402s per second at `concurrency` keep-alive connections (undici Pool, no pipelining)
 * of svc beside the reference stack, rounds alternating which goes first, and svc's CPU per 402 (its process tree,
 * from /proc). The ratio must hold in every pair (round), not only in the medians: a loaded machine swings single
 * rounds. `npm run bench -- --only unpaid_402` runs it alone (both stacks, no paid load); issue_11 runs it inside
 * its paid bench.
 */
import { loadavg } from 'node:os'
import { Pool } from 'undici'
import { percentile, round, runPool } from './pool.js'
import { treeCpuMs } from './processes.js'
import { startReferenceStack, startSvcStack, type Stack, type StackName } from './stacks.js'
import { wrkLoad, wrkVersion } from './wrk-load.js'

export type UnpaidPairOptions = {
  /** Rounds (pairs). @defaultValue 3 */
  rounds?: number
  /** Requests per stack and round. @defaultValue 5_000 */
  requests?: number
  /** Connections. @defaultValue 32 */
  concurrency?: number
}

/** Issue 40's targets: svc's 402s per second against the reference's, in every pair, and svc's CPU per 402. */
export const unpaidTargets = { ratio: 2.5, cpuUs: 90 }

type Side = { svc: number[]; reference: number[] }
const sides = (): Side => ({ svc: [], reference: [] })
const median = (values: number[]) => percentile(values, 50)

/** CPU of all the stack's processes (and their children), ms. */
export function sumCpu(stack: Stack): number {
  return stack.pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0)
}

/** The unpaid 402 rounds of two running stacks (GET /weather/paris, no payment). */
export async function unpaidPairRounds(svc: Stack, reference: Stack, options: UnpaidPairOptions = {}) {
  const { rounds = 3, requests = 5_000, concurrency = 32 } = options
  const stacks = [svc, reference]
  const unpaid = { rps: sides(), p50: sides(), cpuUs: sides(), loadCpuUs: sides(), errors: { svc: 0, reference: 0 } }
  const pools = new Map<StackName, Pool>(
    stacks.map((stack) => [stack.name, new Pool(stack.origin, { connections: concurrency, pipelining: 1 })]),
  )
  const probe = async (stack: Stack) => {
    const response = await pools
      .get(stack.name)!
      .request({ method: 'GET', path: '/weather/paris', headers: { host: stack.host } })
    await response.body.dump()
    return response.statusCode === 402 && typeof response.headers['payment-required'] === 'string'
  }
  const load0 = loadavg()[0]!
  try {
    // Warmed up first (both stacks), so the rounds measure what runs for hours, not the JIT's first minute.
    for (const stack of stacks) await runPool(Array.from({ length: 2_000 }), concurrency, () => probe(stack))
    for (let r = 0; r < rounds; r++)
      for (const stack of r % 2 === 0 ? [svc, reference] : [reference, svc]) {
        const cpu0 = sumCpu(stack)
        const own0 = process.cpuUsage()
        const run = await runPool(Array.from({ length: requests }), concurrency, () => probe(stack))
        const own = process.cpuUsage(own0)
        unpaid.cpuUs[stack.name].push(((sumCpu(stack) - cpu0) * 1000) / requests)
        unpaid.loadCpuUs[stack.name].push((own.user + own.system) / requests)
        unpaid.rps[stack.name].push((requests / run.wallMs) * 1000)
        unpaid.p50[stack.name].push(percentile(run.latencies, 50))
        unpaid.errors[stack.name] += run.results.filter((ok) => !ok).length
      }
  } finally {
    await Promise.all([...pools.values()].map((pool) => pool.close()))
  }
  const wrk = wrkVersion() && (await wrkPairRounds(svc, reference, { rounds, concurrency }))
  const figure = (values: Side, digits = 1) => ({
    svc: round(median(values.svc), digits),
    reference: round(median(values.reference), digits),
    ratio: round(median(values.svc) / median(values.reference), 2),
  })
  const pairs = unpaid.rps.svc.map((rps, r) => round(rps / unpaid.rps.reference[r]!, 2))
  const cpu = median(unpaid.cpuUs.svc)
  return {
    setup: { rounds, requests, concurrency },
    per_second: figure(unpaid.rps, 0),
    /** svc's req/s over the reference's, round by round: the target holds in every one. */
    pair_ratios: pairs,
    p50_ms: figure(unpaid.p50, 2),
    cpu_us_per_request: figure(unpaid.cpuUs, 0),
    /**
     * The load generator's CPU per 402 (this process, undici): on 2 cores it competes with the stack it loads, and
     * past a point it, not svc, sets svc's rate.
     */
    load_generator_cpu_us_per_request: figure(unpaid.loadCpuUs, 0),
    rounds: {
      rps: { svc: unpaid.rps.svc.map((v) => round(v, 0)), reference: unpaid.rps.reference.map((v) => round(v, 0)) },
      cpu_us: {
        svc: unpaid.cpuUs.svc.map((v) => round(v, 0)),
        reference: unpaid.cpuUs.reference.map((v) => round(v, 0)),
      },
    },
    errors: unpaid.errors,
    /** The same pairs loaded by wrk (C, a few µs a request), where installed: the stacks' rates, less the generator's. */
    ...(wrk ? { wrk } : {}),
    /** The machine's 1-minute load before and after the rounds (other processes share its cores). */
    load_average: { before: round(load0, 2), after: round(loadavg()[0]!, 2) },
    target: `svc ≥ ${unpaidTargets.ratio}× reference in every pair; svc's CPU ≤ ${unpaidTargets.cpuUs} µs per 402`,
    pass_ratio: Math.min(...pairs) >= unpaidTargets.ratio,
    pass_cpu: cpu <= unpaidTargets.cpuUs,
    pass: Math.min(...pairs) >= unpaidTargets.ratio && cpu <= unpaidTargets.cpuUs,
  }
}

/** {@link unpaidPairRounds} with wrk as the load (one thread, `concurrency` connections, no pipelining, 3 s a side). */
async function wrkPairRounds(svc: Stack, reference: Stack, options: { rounds: number; concurrency: number }) {
  const rps = sides()
  const cpuUs = sides()
  const loadCpuUs = sides()
  let errors = 0
  for (let r = 0; r < options.rounds; r++)
    for (const stack of r % 2 === 0 ? [svc, reference] : [reference, svc]) {
      const cpu0 = sumCpu(stack)
      const run = await wrkLoad({
        ports: [Number(new URL(stack.origin).port)],
        host: stack.host,
        path: '/weather/paris',
        seconds: 3,
        threads: 1,
        connections: options.concurrency,
        depth: 1,
        status: 402,
      })
      cpuUs[stack.name].push(((sumCpu(stack) - cpu0) * 1000) / run.requests)
      loadCpuUs[stack.name].push((run.cpuMs * 1000) / run.requests)
      rps[stack.name].push((run.requests / run.wallMs) * 1000)
      errors += run.others + run.socketErrors
    }
  return {
    generator: `${wrkVersion()}: 1 thread, ${options.concurrency} connections, no pipelining, 3 s a side`,
    per_second: { svc: round(median(rps.svc), 0), reference: round(median(rps.reference), 0) },
    pair_ratios: rps.svc.map((value, r) => round(value / rps.reference[r]!, 2)),
    cpu_us_per_request: { svc: round(median(cpuUs.svc), 0), reference: round(median(cpuUs.reference), 0) },
    load_generator_cpu_us_per_request: {
      svc: round(median(loadCpuUs.svc), 0),
      reference: round(median(loadCpuUs.reference), 0),
    },
    errors,
  }
}

/** `npm run bench -- --only unpaid_402`: both stacks started, the 402 rounds alone. */
export async function benchUnpaidPair(options: UnpaidPairOptions & { progress?: (line: string) => void } = {}) {
  const { progress = () => {} } = options
  progress('unpaid 402: starting svc (svc up --seed fixtures/demo-seed.yaml) and the reference stack')
  const svc = await startSvcStack()
  try {
    const reference = await startReferenceStack()
    try {
      progress('unpaid 402: rounds')
      return await unpaidPairRounds(svc, reference, { rounds: 5, ...options })
    } finally {
      await reference.stop()
    }
  } finally {
    await svc.stop()
  }
}
