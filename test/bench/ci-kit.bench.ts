/**
 * Issue 37's figures: where a CI job waits for svc. `svc exec -- true` from spawn to exit (start, demo seed, a funded
 * buyer, the command, the stop; target 1.5 s) and `svc up --detach` (ephemeral, free port) from spawn to its return
 * (target 1 s), median of 5 each. Beside them, to say where the time goes: `svc --version` (Node and the CLI's
 * modules) and `svc up --json --seed demo` to its ready line (the start and the seed, without a buyer).
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { percentile, round } from './pool.js'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

/** Runs `svc …` to its exit; the milliseconds from spawn to exit. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, [svcBin, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) =>
    child.once('exit', (code) =>
      code === 0 ? resolve(performance.now() - started) : reject(new Error(`svc ${args[0]} exited ${code}: ${stderr}`)),
    ),
  )
}

/** `svc up --json …` from spawn to its ready line, then stopped. */
async function timedReady(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const started = performance.now()
  const child = spawn(process.execPath, [svcBin, 'up', '--json', ...args], { env, stdio: ['ignore', 'pipe', 'ignore'] })
  await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`svc up exited ${code}`)))
  })
  const ms = performance.now() - started
  child.removeAllListeners('exit')
  await new Promise((resolve) => {
    child.once('exit', resolve)
    child.kill('SIGTERM')
  })
  return ms
}

const figure = (samples: number[], targetMs: number) => ({
  median_ms: round(percentile(samples, 50)),
  samples_ms: samples.map((ms) => round(ms)),
  target_ms: targetMs,
  pass: percentile(samples, 50) <= targetMs,
})

export async function benchCiKit(runs = 5) {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-bench-ci-'))
  const env = { ...process.env, SVC_CONFIG_DIR: configDir }
  const exec: number[] = []
  const detach: number[] = []
  const version: number[] = []
  const upSeeded: number[] = []
  try {
    for (let i = 0; i < runs; i++) {
      exec.push(await timed(['exec', '--', 'true'], env))
      detach.push(await timed(['up', '--detach', '--ephemeral', '--port', '0'], env))
      await timed(['down'], env)
      version.push(await timed(['--version'], env))
      upSeeded.push(await timedReady(['--ephemeral', '--port', '0', '--seed', 'demo'], env))
    }
  } finally {
    await timed(['down'], env).catch(() => {})
    rmSync(configDir, { recursive: true, force: true })
  }
  return {
    runs,
    svc_exec_true: figure(exec, 1_500),
    svc_up_detach: figure(detach, 1_000),
    where_the_time_goes: {
      svc_version_median_ms: round(percentile(version, 50)),
      svc_up_seeded_ready_median_ms: round(percentile(upSeeded, 50)),
    },
    pass: percentile(exec, 50) <= 1_500 && percentile(detach, 50) <= 1_000,
  }
}
