/**
 * Issue 26's first figure: unpaid 402s per second of three `svc serve` processes (the load spread over them) against
 * one, rounds alternating. The load comes from wrk where it is installed (test/bench/wrk-load.ts: ~18 µs of CPU per
 * request, `apt-get install wrk`), else from the Node generator (test/bench/raw-load.ts: ~25-55 µs): on 2 cores the
 * generator's CPU is taken from the processes it measures, so the report names the generator and gives both sides' CPU.
 */
import { loadavg } from 'node:os'
import { percentile, round } from './pool.js'
import { treeCpuMs } from './processes.js'
import { rawLoad } from './raw-load.js'
import { wrkLoad, wrkVersion } from './wrk-load.js'

export type Unpaid402Options = {
  /** The API's host (the Host header of every request). */
  host: string
  /** The three processes' ports; the first one is "one". */
  ports: readonly number[]
  /** Their pids (svc's CPU). */
  pids: readonly number[]
  rounds: number
  /** Requests per side and round with the Node generator (wrk runs `wrkSeconds` instead). */
  unpaidRequests: number
  /** Seconds per side and round with wrk. @defaultValue 5 */
  wrkSeconds?: number
}

type Round = { requests: number; wallMs: number; errors: number; loadCpuMs: number }

const median = (values: number[]) => percentile(values, 50)

export async function unpaid402s(options: Unpaid402Options) {
  const { host, ports, pids, rounds, unpaidRequests, wrkSeconds = 5 } = options
  const path = '/forecast'
  const wrk = wrkVersion()
  // Same generator settings on both sides: 3 wrk threads (one per port of three), 33 connections, 4 pipelined each.
  const probe = async (over: readonly number[], requests: number, seconds: number): Promise<Round> => {
    if (wrk) {
      const run = await wrkLoad({
        ports: over,
        host,
        path,
        seconds,
        threads: 3,
        connections: 33,
        depth: 4,
        status: 402,
      })
      return {
        requests: run.requests,
        wallMs: run.wallMs,
        errors: run.others + run.socketErrors,
        loadCpuMs: run.cpuMs,
      }
    }
    const own0 = process.cpuUsage()
    const run = await rawLoad({ ports: over, host, path, requests, connections: 32, depth: 4 })
    const own = process.cpuUsage(own0)
    return {
      requests,
      wallMs: run.wallMs,
      errors: requests - (run.statuses[402] ?? 0),
      loadCpuMs: (own.user + own.system) / 1000,
    }
  }
  const sides = { one: ports.slice(0, 1), three: ports }
  const rps = { one: [] as number[], three: [] as number[] }
  const cpuUs = { one: [] as number[], three: [] as number[] }
  const loadCpuUs = { one: [] as number[], three: [] as number[] }
  let errors = 0
  const cpuOfCluster = () => pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0)
  // Warm both sides up first (V8 compiles the 402 path over the first seconds of load).
  for (const over of [sides.one, sides.three]) await probe(over, 10_000, wrkSeconds)
  for (let r = 0; r < rounds; r++)
    for (const name of r % 2 === 0 ? (['one', 'three'] as const) : (['three', 'one'] as const)) {
      const cpu0 = cpuOfCluster()
      const run = await probe(sides[name], unpaidRequests, wrkSeconds)
      cpuUs[name].push(((cpuOfCluster() - cpu0) * 1000) / run.requests)
      loadCpuUs[name].push((run.loadCpuMs * 1000) / run.requests)
      rps[name].push((run.requests / run.wallMs) * 1000)
      errors += run.errors
    }

  const ratio = median(rps.three) / median(rps.one)
  // What two cores free of other work would give at the CPU each side used: one process is held to one core (one
  // event loop), three share both with the generator. The figure that survives a machine busy with other work.
  const cpu = (name: 'one' | 'three') => ({ svc: median(cpuUs[name]), load: median(loadCpuUs[name]) })
  const capacity = {
    one: Math.min(1e6 / cpu('one').svc, 2e6 / (cpu('one').svc + cpu('one').load)),
    three: 2e6 / (cpu('three').svc + cpu('three').load),
  }
  return {
    load_generator: wrk
      ? `${wrk}: 3 threads, 33 connections, 4 requests pipelined on each, ${wrkSeconds} s a round`
      : `test/bench/raw-load.ts (Node; wrk is not installed): 32 connections, 4 requests pipelined on each, ${unpaidRequests} requests a round`,
    one_process_rps: round(median(rps.one)),
    three_processes_rps: round(median(rps.three)),
    rounds_rps: { one: rps.one.map((v) => round(v)), three: rps.three.map((v) => round(v)) },
    /** Answers other than a 402, and socket errors. */
    errors,
    /** svc's CPU per 402 (all processes): what spreading the same load over three costs. */
    cpu_us_per_request: { one: round(median(cpuUs.one)), three: round(median(cpuUs.three)) },
    /** The load generator's CPU per 402. */
    load_generator_cpu_us_per_request: { one: round(median(loadCpuUs.one)), three: round(median(loadCpuUs.three)) },
    /** The machine's 1-minute load when the rounds ended (other processes share the 2 cores). */
    load_average: round(loadavg()[0]!, 2),
    ratio: round(ratio, 2),
    /** The ratio two free cores would give at this run's CPU per 402 (svc's and the generator's, each side). */
    ratio_from_cpu: round(capacity.three / capacity.one, 2),
    target_ratio: 1.5,
    pass: ratio >= 1.5 && errors === 0,
  }
}
