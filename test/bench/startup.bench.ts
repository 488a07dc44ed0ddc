/**
 * Issue 40's start-up figures, median of 5 each, the runs of each figure interleaved with the others':
 * - `svc up --json --ephemeral` from spawn to its ready line, plain (≤ 400 ms) and with the demo seed (≤ 600 ms);
 * - `startSandbox()` (svc/testing, in a Node process of its own as a test file runs it) from its `import` to a funded
 *   buyer and a verified seller (≤ 700 ms);
 * - RSS of svc + Anvil idle (≤ 120 MB): `svc up --seed demo`, 10 paid requests, then 2 s left alone (as issue 11's
 *   figure), and beside it right after the ready line.
 * Each start's CPU time (svc's Node process, from /proc at the ready line; the test process's own for startSandbox)
 * is given beside its wall time: it moves less when the machine is busy. `where_the_time_goes` times what every
 * start pays before svc's own work: Node itself (`node -e 0`) and Node with the CLI's modules (`svc --version`).
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { percentile, round } from './pool.js'
import { processCpuMs } from './processes.js'
import { treeRssMb } from './process-tree.js'
import { spawnSvcUp, startSvcStack } from './stacks.js'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))
const testingModule = new URL('../../dist/sdk/testing.js', import.meta.url).href

const targets = { svcUpMs: 400, svcUpSeededMs: 600, startSandboxMs: 700, idleRssMb: 120 }

/** Spawns `node args` to its exit; the milliseconds it took and what it printed. */
function runNode(args: string[]): Promise<{ ms: number; stdout: string }> {
  const started = performance.now()
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk) => (stdout += chunk))
  child.stderr.on('data', (chunk) => (stderr = `${stderr}${chunk}`.slice(-4_000)))
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0
        ? resolve({ ms: performance.now() - started, stdout })
        : reject(new Error(`node ${args.join(' ').slice(0, 80)} exited ${code}: ${stderr.trim()}`)),
    ),
  )
}

/** `svc up --json …` to its ready line: wall ms from spawn, and the CPU ms svc's Node process had used by then. */
async function svcUpReady(args: string[]): Promise<{ ms: number; cpuMs: number }> {
  const svc = await spawnSvcUp(['--ephemeral', ...args])
  const cpuMs = processCpuMs(svc.child.pid)
  await svc.stop()
  return { ms: svc.readyMs, cpuMs }
}

/**
 * `startSandbox()` in a Node process of its own, as a test file calls it: from its `import` to the sandbox it
 * answers (a funded buyer, a verified seller with a key), with the process's CPU time by then.
 */
async function startSandboxReady(): Promise<{ ms: number; cpuMs: number }> {
  const script = `
    const started = performance.now()
    const { startSandbox } = await import(${JSON.stringify(testingModule)})
    const sandbox = await startSandbox()
    const ms = performance.now() - started
    const cpu = process.cpuUsage()
    process.stdout.write(JSON.stringify({ ms, cpuMs: (cpu.user + cpu.system) / 1000 }) + '\\n')
    await sandbox.stop()
    process.exit(0)`
  const { stdout } = await runNode(['--input-type=module', '-e', script])
  return JSON.parse(stdout.trim().split('\n')[0]!) as { ms: number; cpuMs: number }
}

/** `svc up --seed demo`: RSS of svc + Anvil 2 s after the ready line, and 2 s after 10 paid requests. */
async function idleRss() {
  const svc = await startSvcStack()
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const afterReady = treeRssMb(svc.pids[0]!)
    const buyer = await svc.newBuyer()
    for (let i = 0; i < 10; i++) {
      const response = await buyer(svc.url)
      if (response.status !== 200) throw new Error(`a paid request answered ${response.status}`)
      await response.arrayBuffer()
    }
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    return { afterReady, afterPayments: treeRssMb(svc.pids[0]!) }
  } finally {
    await svc.stop()
  }
}

const figure = (samples: { ms: number; cpuMs: number }[], targetMs: number) => ({
  median_ms: round(
    percentile(
      samples.map((s) => s.ms),
      50,
    ),
  ),
  samples_ms: samples.map((s) => round(s.ms)),
  cpu_median_ms: round(
    percentile(
      samples.map((s) => s.cpuMs),
      50,
    ),
  ),
  target_ms: targetMs,
  pass:
    percentile(
      samples.map((s) => s.ms),
      50,
    ) <= targetMs,
})

export async function benchStartup(options: { runs?: number; progress?: (line: string) => void } = {}) {
  const { runs = 5, progress = () => {} } = options
  const plain: { ms: number; cpuMs: number }[] = []
  const seeded: { ms: number; cpuMs: number }[] = []
  const sandbox: { ms: number; cpuMs: number }[] = []
  const node: number[] = []
  const version: number[] = []
  // One warm-up of each (the file cache, Anvil's binary), not counted.
  await svcUpReady([])
  await startSandboxReady()
  for (let i = 0; i < runs; i++) {
    progress(`startup: round ${i + 1} of ${runs}`)
    plain.push(await svcUpReady([]))
    seeded.push(await svcUpReady(['--seed', 'demo']))
    sandbox.push(await startSandboxReady())
    node.push((await runNode(['-e', '0'])).ms)
    version.push((await runNode([svcBin, '--version'])).ms)
  }
  progress('startup: idle RSS')
  const rss = await idleRss()
  const up = figure(plain, targets.svcUpMs)
  const upSeeded = figure(seeded, targets.svcUpSeededMs)
  const startSandbox = figure(sandbox, targets.startSandboxMs)
  const idle = {
    ...rss.afterPayments,
    target_mb: targets.idleRssMb,
    pass: rss.afterPayments.total_mb <= targets.idleRssMb,
  }
  return {
    runs,
    svc_up_ready: up,
    svc_up_seeded_ready: upSeeded,
    start_sandbox_ready: startSandbox,
    idle_rss_mb: { ...idle, right_after_ready: rss.afterReady },
    where_the_time_goes: {
      node_boot_median_ms: round(percentile(node, 50)),
      svc_version_median_ms: round(percentile(version, 50)),
    },
    pass: up.pass && upSeeded.pass && startSandbox.pass && idle.pass,
  }
}
