import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { isProcessRunning } from '../core/os-process.js'
import { SvcError, UsageError } from '../core/errors.js'
import {
  checkName as check,
  DetachError,
  type DetachedRecord,
  findRecord as find,
  isRunning,
  removeRecord,
  startDetached as start,
} from './detach-start.js'
import { stopTimeoutMs } from './signals.js'

export {
  type DetachedReady,
  type DetachedRecord,
  detachedDir,
  detachedLine,
  isRunning,
  removeRecord,
} from './detach-start.js'

/** cli/detach-start.ts's errors as the CLI's: a usage error, or svc failing to start; both exit 2. */
function cliError(error: unknown): unknown {
  if (!(error instanceof DetachError)) return error
  return error.usage ? new UsageError(error.message) : new SvcError(error.message, { exitCode: 2 })
}

/** A sandbox's name: a file name, so letters, digits, `.`, `_`, `-` (a usage error else). */
export function checkName(name: string): string {
  try {
    return check(name)
  } catch (error) {
    throw cliError(error)
  }
}

/** The record of the sandbox named `name`, or the one whose data dir is `dataDir` (a bad name: a usage error). */
export function findRecord(env: NodeJS.ProcessEnv, by: { name?: string | undefined; dataDir?: string | undefined }) {
  try {
    return find(env, by)
  } catch (error) {
    throw cliError(error)
  }
}

/**
 * `svc up --detach` from the CLI (cli/detach-start.ts `startDetached`; bin/svc.js starts it there without the CLI),
 * with the CLI's errors.
 */
export async function startDetached(env: NodeJS.ProcessEnv, rawArgs: readonly string[], name: string) {
  try {
    return await start(env, rawArgs, name)
  } catch (error) {
    throw cliError(error)
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
