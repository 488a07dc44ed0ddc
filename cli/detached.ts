import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { isProcessRunning, readStartTime } from '../core/os-process.js'
import { SvcError, UsageError } from '../core/errors.js'
import type { SeedResult } from '../sdk/seed.js'
import { configPath } from './config.js'
import { type Buyer, createBuyer, fundBuyer, type ReadyLine } from './sandbox-env.js'
import { stopTimeoutMs } from './signals.js'

/** The ready line of `svc up --json`, as a detached svc printed it. */
export type DetachedReady = ReadyLine & { data_dir: string; seed?: SeedResult }

/** What `svc up --detach` keeps of a svc it started: `<config dir>/sandboxes/<name>.json`, readable by its owner only. */
export type DetachedRecord = {
  name: string
  pid: number
  /** When the process started, as the OS tells it: with the pid, it names one process (the OS reuses pids). */
  started: string | undefined
  log: string
  ready: DetachedReady
  buyer: Buyer
}

/** Where the records and logs of detached sandboxes live: `sandboxes/` beside the CLI's session. */
export const detachedDir = (env: NodeJS.ProcessEnv) => join(dirname(configPath(env)), 'sandboxes')

/** A sandbox's name: a file name, so letters, digits, `.`, `_`, `-`. */
export function checkName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    throw new UsageError(`--name must be letters, digits, ".", "_" or "-" (at most 64), got "${name}"`)
  return name
}

function readRecordFile(path: string): DetachedRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(path, 'utf8')) as DetachedRecord
    return Number.isSafeInteger(record.pid) && typeof record.ready?.control_url === 'string' ? record : undefined
  } catch {
    return undefined
  }
}

/** The record of the sandbox named `name`, or the one whose data dir is `dataDir`. */
export function findRecord(
  env: NodeJS.ProcessEnv,
  by: { name?: string | undefined; dataDir?: string | undefined },
): DetachedRecord | undefined {
  const dir = detachedDir(env)
  if (by.dataDir === undefined) return readRecordFile(join(dir, `${checkName(by.name ?? 'default')}.json`))
  const wanted = resolve(by.dataDir)
  let names: string[] = []
  try {
    names = readdirSync(dir).filter((file) => file.endsWith('.json'))
  } catch {}
  return names.map((file) => readRecordFile(join(dir, file))).find((record) => record?.ready.data_dir === wanted)
}

/** True while the svc a record names runs (the same process: its pid and its start time). */
export function isRunning(record: DetachedRecord): boolean {
  if (!isProcessRunning(record.pid)) return false
  return record.started === undefined || readStartTime(record.pid) === record.started
}

/** Forgets a sandbox (its log stays, for a look at why it died). */
export function removeRecord(env: NodeJS.ProcessEnv, record: DetachedRecord): void {
  rmSync(join(detachedDir(env), `${record.name}.json`), { force: true })
}

/** `svc up`'s command line without `--detach`, `--name` and `--json` (the detached svc gets its own). */
function upArgs(rawArgs: readonly string[]): string[] {
  const args: string[] = []
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i]!
    if (arg === '--') {
      args.push(...rawArgs.slice(i))
      break
    }
    if (arg === '--name') i++
    else if (arg !== '--detach' && arg !== '--json' && !arg.startsWith('--name=')) args.push(arg)
  }
  return args
}

/** The last `{"error": …}` line svc wrote to its log (with its `details`), else its last line. */
function reasonInLog(log: string): string {
  let lines: string[] = []
  try {
    lines = readFileSync(log, 'utf8').trim().split('\n').filter(Boolean)
  } catch {}
  for (const line of lines.toReversed()) {
    try {
      const { error, details } = JSON.parse(line) as { error?: unknown; details?: unknown }
      // A seed file's problems: the list after the message, on the same line.
      if (typeof error === 'string' && Array.isArray(details) && details.length > 0)
        return `${error.replace(/:$/, '')}: ${details.join('; ')}`
      if (typeof error === 'string') return error
    } catch {}
  }
  return lines.at(-1)?.replace(/^svc: /, '') ?? 'no reason given'
}

/**
 * `svc up --detach`: runs `svc up --json --no-tui --no-watch-parent` with the same options in its own session (a
 * process group of its own, so no terminal's Ctrl-C reaches it), its stderr to `sandboxes/<name>.log`; waits for its
 * ready line, funds a buyer, records it and returns the ready line with the name, pid, log and buyer. svc exiting
 * first is a usage error (exit 2) with its reason.
 */
export async function startDetached(env: NodeJS.ProcessEnv, rawArgs: readonly string[], name: string) {
  checkName(name)
  const running = findRecord(env, { name })
  if (running && isRunning(running))
    throw new UsageError(
      `a sandbox named "${name}" runs already (pid ${running.pid}, ${running.ready.control_url}): \`svc down${name === 'default' ? '' : ` --name ${name}`}\` stops it, or give another --name`,
    )
  const dir = detachedDir(env)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const log = join(dir, `${name}.log`)
  // Appended to (O_APPEND), so what else writes to the log (a CI step's note) is kept in order.
  writeFileSync(log, '', { mode: 0o600 })
  const logFd = openSync(log, 'a', 0o600)
  // This program again: bin/svc.js (or the sources under tsx, whose loader is in execArgv).
  const child = spawn(
    process.execPath,
    [
      ...process.execArgv,
      process.argv[1]!,
      ...upArgs(rawArgs),
      '--json',
      '--log-progress',
      '--no-tui',
      '--no-watch-parent',
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', logFd] },
  )
  closeSync(logFd)
  const newBuyer = createBuyer()
  // Interrupted while svc starts: it is stopped too, never left starting with no record.
  const interrupted = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM')
    } catch {}
    process.exit(130)
  }
  process.on('SIGINT', interrupted)
  process.on('SIGTERM', interrupted)
  try {
    const line = await new Promise<string>((resolveLine, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolveLine)
      child.once('error', reject)
      child.once('exit', () =>
        reject(new SvcError(`svc did not start: ${reasonInLog(log)} (log: ${log})`, { exitCode: 2 })),
      )
    })
    child.removeAllListeners('exit')
    const ready = JSON.parse(line) as DetachedReady
    let buyer: Buyer
    try {
      buyer = await fundBuyer(ready.chain_manager_url, newBuyer)
    } catch (error) {
      process.kill(-child.pid!, 'SIGTERM')
      throw error
    }
    const record: DetachedRecord = { name, pid: child.pid!, started: readStartTime(child.pid!), log, ready, buyer }
    writeFileSync(join(dir, `${name}.json`), `${JSON.stringify(record)}\n`, { mode: 0o600 })
    child.stdout!.destroy()
    child.unref()
    return record
  } finally {
    process.off('SIGINT', interrupted)
    process.off('SIGTERM', interrupted)
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
