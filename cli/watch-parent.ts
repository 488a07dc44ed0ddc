import { basename } from 'node:path'
import { isProcessRunning, readCommandLine, readParentPid } from '../core/os-process.js'

/**
 * The parent this process started with, read when it starts (by bin/svc.js first, else when this module loads): a
 * parent that dies during start-up is still noticed.
 */
const startParent = (globalThis as { svcStartParent?: number }).svcStartParent ?? process.ppid

/** Shells that npm, npx, yarn and pnpm run a script with (`sh -c "node bin/svc.js up"`). */
const scriptShells = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh'])

/**
 * The processes whose death ends svc: its parent; and when the parent is the `sh -c` of a script runner (npm start),
 * the runner above it, since the shell stays alive, waiting for svc, when the runner is killed.
 */
function watchedAncestors(): number[] {
  const parent = startParent
  const args = readCommandLine(parent)
  const isScriptShell = args !== undefined && scriptShells.has(basename(args[0] ?? '')) && args[1] === '-c'
  const runner = isScriptShell ? readParentPid(parent) : undefined
  return runner !== undefined && runner > 1 ? [parent, runner] : [parent]
}

export type WatchParentOptions = {
  /** @defaultValue 200 */
  intervalMs?: number | undefined
}

/**
 * Resolves when the process that started svc is gone (a killed `npm start`, a test runner that died): svc's parent
 * pid changes (init or a subreaper adopts the orphan), or the script runner above a `sh -c` parent exits; the
 * parent is the one svc started with, so one that died during start-up counts. Polls without keeping the event loop
 * alive; undefined when svc started orphaned already (a daemon).
 */
export function watchParent(options: WatchParentOptions = {}): Promise<void> | undefined {
  const { intervalMs = 200 } = options
  const parent = startParent
  if (parent <= 1) return undefined
  // The parent died while svc was starting: it is gone already.
  if (process.ppid !== parent) return Promise.resolve()
  const [, runner] = watchedAncestors()
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (process.ppid === parent && (runner === undefined || isProcessRunning(runner))) return
      clearInterval(timer)
      resolve()
    }, intervalMs)
    timer.unref()
  })
}
