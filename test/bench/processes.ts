import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { listProcessTree } from './process-tree.js'

export type BenchProcess<Ready> = { child: ChildProcess; ready: Ready; stop(): Promise<void> }

/**
 * Runs one of the bench's scripts (`node --import tsx test/bench/<script> <args>`) and resolves with the JSON of its
 * first stdout line. `nodeArgs` go before the script (`--cpu-prof`, …).
 */
export async function startBenchScript<Ready>(
  script: string,
  args: string[] = [],
  nodeArgs: string[] = [],
): Promise<BenchProcess<Ready>> {
  const path = fileURLToPath(new URL(`./${script}`, import.meta.url))
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr = `${stderr}${chunk}`.slice(-4_000)))
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${stderr.trim()}`)))
  })
  return { child, ready: JSON.parse(line) as Ready, stop: () => stopChild(child) }
}

export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/** CPU time (user + system, ms) one process has used so far, from /proc (Linux); NaN when gone or elsewhere. */
export function processCpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return Number.NaN
  }
}

/** CPU time (user + system, ms) a process and its descendants have used so far, from /proc (Linux); NaN elsewhere. */
export function treeCpuMs(root: number | undefined): number {
  if (root === undefined) return Number.NaN
  let total = 0
  for (const { pid } of listProcessTree(root)) {
    const ms = processCpuMs(pid)
    // Gone meanwhile.
    if (!Number.isNaN(ms)) total += ms
  }
  return total
}
