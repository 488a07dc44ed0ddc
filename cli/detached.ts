import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isProcessRunning } from '../core/os-process.js'
import { SvcError, UsageError } from '../core/errors.js'
import { DetachError, type DetachedRecord, isRunning, removeRecord, startDetached as start } from './detach-start.js'
import { stopTimeoutMs } from './signals.js'

export {
  checkName,
  type DetachedReady,
  type DetachedRecord,
  detachedDir,
  detachedLine,
  findRecord,
  isRunning,
  removeRecord,
} from './detach-start.js'

/**
 * `svc up --detach` from the CLI (cli/detach-start.ts `startDetached`; bin/svc.js starts it there without the CLI):
 * its errors as the CLI's, a usage error or svc failing to start, both exit 2.
 */
export async function startDetached(env: NodeJS.ProcessEnv, rawArgs: readonly string[], name: string) {
  try {
    return await start(env, rawArgs, name)
  } catch (error) {
    if (!(error instanceof DetachError)) throw error
    throw error.usage ? new UsageError(error.message) : new SvcError(error.message, { exitCode: 2 })
  }
}

/**
 * Stops a detached svc: SIGTERM to its process group, then waits for svc and its Anvil to exit; past svc's own stop
 * bound, SIGKILL. The record goes.
 */
export async function stopDetached(env: NodeJS.ProcessEnv, record: DetachedRecord): Promise<void> {
  let anvil: number | undefined
  try {
    anvil = Number(readFileSync(join(record.ready.data_dir, 'anvil.pid'), 'utf8').trim().split(/\s+/)[0]) || undefined
  } catch {}
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-record.pid, name)
    } catch {
      try {
        process.kill(record.pid, name)
      } catch {}
    }
  }
  signal('SIGTERM')
  const gone = () => !isRunning(record) && (anvil === undefined || !isProcessRunning(anvil))
  const deadline = Date.now() + stopTimeoutMs + 5_000
  while (!gone() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  if (!gone()) {
    signal('SIGKILL')
    if (anvil !== undefined && isProcessRunning(anvil)) process.kill(anvil, 'SIGKILL')
  }
  removeRecord(env, record)
}
