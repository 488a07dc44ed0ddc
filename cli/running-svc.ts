import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { isProcessRunning } from '../core/os-process.js'
import { configPath } from './config.js'

/** What `svc up` records while it runs, so a CLI given no target talks to the svc the user started. */
export type RunningSvc = { pid: number; port: number; control_url: string; sandbox_control_url: string }

/** `running.json` beside the session (`$SVC_CONFIG_DIR`, else `~/.config/svc`). */
export const runningPath = (env: NodeJS.ProcessEnv) => join(dirname(configPath(env)), 'running.json')

/**
 * Records the svc this process runs (the latest `svc up` wins) and forgets it when this process exits; a record left
 * by a process that is gone (`kill -9`) is ignored by {@link readRunning}.
 */
export function recordRunning(env: NodeJS.ProcessEnv, running: Omit<RunningSvc, 'pid'>): void {
  const path = runningPath(env)
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
    writeFileSync(path, `${JSON.stringify({ pid: process.pid, ...running })}\n`, { mode: 0o600 })
  } catch {
    return // A read-only config dir: the CLI falls back to its other defaults.
  }
  process.once('exit', () => {
    if (readRecord(path)?.pid === process.pid) rmSync(path, { force: true })
  })
}

/** The svc `svc up` recorded, when its process is still alive. */
export function readRunning(env: NodeJS.ProcessEnv): RunningSvc | undefined {
  const record = readRecord(runningPath(env))
  return record && isProcessRunning(record.pid) ? record : undefined
}

function readRecord(path: string): RunningSvc | undefined {
  try {
    const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<RunningSvc>
    if (
      Number.isSafeInteger(parsed.pid) &&
      Number.isSafeInteger(parsed.port) &&
      typeof parsed.control_url === 'string' &&
      typeof parsed.sandbox_control_url === 'string' &&
      URL.canParse(parsed.control_url)
    )
      return parsed as RunningSvc
  } catch {}
  return undefined
}
