import { spawn } from 'node:child_process'
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { isProcessRunning, readStartTime } from '../core/os-process.js'
import type { SeedResult } from '../sdk/seed.js'
import { configPath } from './config-path.js'
import type { Buyer, ReadyLine } from './sandbox-env.js'

// `svc up --detach` starts here. bin/svc.js loads this file (and nothing of the CLI) for `svc up … --detach`, so the
// detached svc is spawned at once and this process only waits for it and records it: it imports node's modules and
// core/os-process.ts, no more (no viem, no zod, no commander). cli/detached.ts has the rest (`svc status`, `svc down`).

/** The ready line of `svc up --json`, as a detached svc printed it. */
export type DetachedReady = ReadyLine & { seed?: SeedResult }

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

/** Why `svc up --detach` failed: a usage error (a bad name, one running already), or svc failing to start; exit 2. */
export class DetachError extends Error {
  constructor(
    message: string,
    readonly usage: boolean,
  ) {
    super(message)
  }
}

/** Where the records and logs of detached sandboxes live: `sandboxes/` beside the CLI's session. */
export const detachedDir = (env: NodeJS.ProcessEnv) => join(dirname(configPath(env)), 'sandboxes')

/** A sandbox's name: a file name, so letters, digits, `.`, `_`, `-`. */
export function checkName(name: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    throw new DetachError(`--name must be letters, digits, ".", "_" or "-" (at most 64), got "${name}"`, true)
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

/** The options part of a command line: what comes before `--`. */
const optionsOf = (args: readonly string[]) => (args.includes('--') ? args.slice(0, args.indexOf('--')) : args)

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
 * `svc up --detach`: runs `svc up --json --no-tui --no-watch-parent --with-buyer` with the same options in its own
 * session (a process group of its own, so no terminal's Ctrl-C reaches it), its stderr to `sandboxes/<name>.log`;
 * waits for its ready line (svc funds a new buyer as it starts, and gives it there), records it and returns the ready
 * line with the name, pid, log and buyer. `rawArgs`: the command line from `up` on. svc exiting first is a
 * {@link DetachError} with its reason.
 */
export async function startDetached(env: NodeJS.ProcessEnv, rawArgs: readonly string[], name: string) {
  checkName(name)
  const running = findRecord(env, { name })
  if (running && isRunning(running))
    throw new DetachError(
      `a sandbox named "${name}" runs already (pid ${running.pid}, ${running.ready.control_url}): \`svc down${name === 'default' ? '' : ` --name ${name}`}\` stops it, or give another --name`,
      true,
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
      '--with-buyer',
    ],
    { env, detached: true, stdio: ['ignore', 'pipe', logFd] },
  )
  closeSync(logFd)
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
      child.once('exit', () => reject(new DetachError(`svc did not start: ${reasonInLog(log)} (log: ${log})`, false)))
    })
    child.removeAllListeners('exit')
    const { buyer, ...ready } = JSON.parse(line) as DetachedReady & { buyer: Buyer }
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

/** What `svc up --detach` prints: the ready line with its name, pid, log and buyer. */
export const detachedLine = ({ ready, name, pid, log, buyer }: DetachedRecord) =>
  `${JSON.stringify({ ...ready, name, pid, log, buyer })}\n`

/**
 * bin/svc.js's way in, before the CLI loads: `svc up [options] --detach` (not after `--`, without `--help`), else
 * undefined (the CLI runs it). `args`: the command line after `node svc`.
 */
export function detachRequest(args: readonly string[]): { name: string; json: boolean } | undefined {
  const options = optionsOf(args)
  if (args[0] !== 'up' || !options.includes('--detach') || options.includes('--help') || options.includes('-h'))
    return undefined
  let name = 'default'
  for (let i = 1; i < options.length; i++) {
    if (options[i] === '--name') name = options[i + 1] ?? ''
    else if (options[i]!.startsWith('--name=')) name = options[i]!.slice('--name='.length)
  }
  return { name, json: options.includes('--json') }
}

/** Runs `svc up --detach` as the CLI would (its output, its one-line error), and gives its exit code. */
export async function runDetachRequest(
  args: readonly string[],
  request: { name: string; json: boolean },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  try {
    process.stdout.write(detachedLine(await startDetached(env, args, request.name)))
    return 0
  } catch (error) {
    const message = String((error as { message?: unknown })?.message ?? error).split('\n')[0]
    process.stderr.write(request.json ? `${JSON.stringify({ error: message })}\n` : `svc: ${message}\n`)
    return 2
  }
}
