import { randomBytes } from 'node:crypto'
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { storageProblem } from '../../core/storage-errors.js'

/**
 * The chain of a data dir, kept as a database keeps its files (issue 21):
 * - `state.json` is written by svc only: to a temporary file, fsynced, renamed over the old one, the old one kept as
 *   `state.prev.json` (a hard link, so a `state.json` exists at every instant). svc writes it every
 *   {@link stateIntervalSeconds} and around a revert, from `anvil_dumpState`.
 * - Anvil's own dump on exit (`--dump-state`, what saves the chain when svc is killed and the watchdog stops Anvil)
 *   goes to a file of that process, `exit-<id>.json`, which the next start trusts only when `exit-dump` names it:
 *   svc names it once that Anvil holds the chain (it loaded the state), and un-names it while the chain and the
 *   ledger change together (a revert). An Anvil that has not loaded the state never dumps over a good copy, and a
 *   dump cut short (a full disk) is found out at the next start and passed over for the last good copy.
 */

/** How often svc writes the chain to `state.json` while it runs. @defaultValue 30 s */
export const stateIntervalSeconds = 30

const manifestName = 'exit-dump'
const exitDumpPattern = /^exit-[0-9a-f]+\.json$/

/** The copy kept from before the last write of `path`. */
export const previousStatePath = (path: string) => path.replace(/\.json$/, '.prev.json')

/** Writes `data` to `path` durably: a temporary file, fsynced, renamed over `path`, the directory fsynced. */
export function writeFileAtomically(path: string, data: Uint8Array | string, options: { keepPrevious?: boolean } = {}) {
  const dir = dirname(path)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const temporary = join(dir, `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    const fd = openSync(temporary, 'w', 0o600)
    try {
      const bytes = typeof data === 'string' ? Buffer.from(data) : data
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (options.keepPrevious && existsSync(path)) keepPrevious(path)
    renameSync(temporary, path)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
  syncDir(dir)
}

/** `path` becomes `state.prev.json` too (a hard link: `path` itself stays in place until it is replaced). */
function keepPrevious(path: string) {
  const previous = previousStatePath(path)
  const link = `${previous}.${randomBytes(4).toString('hex')}.tmp`
  linkSync(path, link)
  renameSync(link, previous)
}

function syncDir(dir: string) {
  if (process.platform === 'win32') return
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Why `file` is not a whole JSON object, by its first and last bytes: what a write cut short (a full disk) leaves
 * fails it. Cheap for a big chain (a full parse of 80 MB takes 2.5 s): for the files svc wrote itself, durably.
 */
export function truncatedState(file: string): string | undefined {
  const fd = openSync(file, 'r')
  try {
    const { size } = statSync(file)
    if (size === 0) return 'the file is empty'
    const head = Buffer.alloc(1)
    readSync(fd, head, 0, 1, 0)
    const tail = Buffer.alloc(Math.min(64, size))
    readSync(fd, tail, 0, tail.length, size - tail.length)
    if (head.toString() !== '{' || !tail.toString().trimEnd().endsWith('}')) return 'the file ends before its JSON does'
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** Why `file` is not a chain state Anvil can load, or undefined when it is one (a full parse: for Anvil's dumps). */
export function unreadableState(file: string): string | undefined {
  try {
    const state = JSON.parse(readFileSync(file, 'utf8')) as unknown
    if (typeof state !== 'object' || state === null || !('accounts' in state)) return 'it is not a chain state'
    return undefined
  } catch (error) {
    return (error as Error).message
  }
}

/** Asks Anvil for its state (`anvil_dumpState`: gzipped JSON, hex) and writes it to `file` durably. */
export async function saveChainState(
  rpcUrl: string,
  file: string,
  options: { keepPrevious?: boolean } = {},
): Promise<void> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_dumpState', params: [] }),
  })
  const answer = (await response.json()) as { result?: string; error?: { message?: string } }
  if (typeof answer.result !== 'string')
    throw new Error(`anvil_dumpState failed: ${answer.error?.message ?? `HTTP ${response.status}`}`)
  writeFileAtomically(file, gunzipSync(Buffer.from(answer.result.slice(2), 'hex')), options)
}

/**
 * Anvil's arguments (prool's names) for a chain kept in `path`: load `loadState` (from {@link prepareChainState}) at
 * boot, dump on exit to `exitDump` ({@link newExitDumpPath}), which counts only once {@link trustExitDump} names it.
 */
export function anvilStateArgs(loadState: string | undefined, exitDump: string): Record<string, unknown> {
  return { dumpState: exitDump, ...(loadState ? { loadState } : {}) }
}

/** A new exit dump file beside `path`, for one Anvil process. */
export const newExitDumpPath = (path: string) => join(dirname(path), `exit-${randomBytes(6).toString('hex')}.json`)

/** The next start may take `exitDump` (Anvil's dump on exit) as the chain: its Anvil holds the chain now. */
export function trustExitDump(path: string, exitDump: string): void {
  writeFileAtomically(join(dirname(path), manifestName), basename(exitDump))
}

/** No exit dump is the chain until {@link trustExitDump} names one again (the chain and the ledger are changing). */
export function distrustExitDump(path: string): void {
  rmSync(join(dirname(path), manifestName), { force: true })
  syncDir(dirname(path))
}

export type PreparedState = {
  /** The file Anvil should load, undefined for an empty chain. */
  loadState: string | undefined
  /** What was chosen and why, when it was not simply `state.json` (a line for the log). */
  note: string | undefined
}

/**
 * Decides which chain a start loads: the trusted exit dump when it is complete (it becomes `state.json`), else
 * `state.json`, else `state.prev.json` when `state.json` does not parse; untrusted exit dumps are removed.
 * `fresh`: the saved chain is left where it is (the first save replaces it) and nothing is loaded.
 */
export function prepareChainState(path: string, options: { fresh?: boolean } = {}): PreparedState {
  const dir = dirname(path)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  const notes: string[] = []
  const manifest = join(dir, manifestName)
  const trusted = existsSync(manifest) ? readFileSync(manifest, 'utf8').trim() : undefined
  if (trusted && exitDumpPattern.test(trusted) && !options.fresh) {
    const dump = join(dir, trusted)
    if (existsSync(dump)) {
      const why = unreadableState(dump)
      if (why === undefined) {
        fsyncFile(dump)
        promoteState(path, dump)
      } else notes.push(`Anvil's last dump of the chain is incomplete (${why}; was the disk full?)`)
    }
  }
  distrustExitDump(path)
  for (const name of readdirSync(dir)) if (exitDumpPattern.test(name)) rmSync(join(dir, name), { force: true })
  if (options.fresh) return { loadState: undefined, note: undefined }
  for (const file of [path, previousStatePath(path)]) {
    if (!existsSync(file)) continue
    const why = truncatedState(file)
    if (why !== undefined) {
      notes.push(`${basename(file)} does not parse (${why})`)
      continue
    }
    if (file === path)
      return {
        loadState: path,
        note: notes.length ? `${notes.join('; ')}: loaded the last good copy, ${describe(path)}` : undefined,
      }
    // The unreadable state.json is put aside (a later save would keep it as the previous copy) for the good one.
    if (existsSync(path)) renameSync(path, `${path}.unreadable`)
    linkSync(file, path)
    syncDir(dir)
    return { loadState: path, note: `${notes.join('; ')}: loaded the last good copy, ${describe(file)}` }
  }
  if (notes.length === 0) return { loadState: undefined, note: undefined }
  return { loadState: undefined, note: `${notes.join('; ')}: no good copy of the chain is left, it starts empty` }
}

function fsyncFile(file: string) {
  const fd = openSync(file, 'r+')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

const describe = (file: string) => `${basename(file)}, saved ${statSync(file).mtime.toISOString()}`

/** The exit dump {@link trustExitDump} named last, if any. */
export function trustedExitDump(path: string): string | undefined {
  const manifest = join(dirname(path), manifestName)
  if (!existsSync(manifest)) return undefined
  const name = readFileSync(manifest, 'utf8').trim()
  return exitDumpPattern.test(name) ? join(dirname(path), name) : undefined
}

/** Makes `file` (written durably, beside `path`) the chain of `path`, the previous copy kept. */
export function promoteState(path: string, file: string): void {
  if (existsSync(path)) keepPrevious(path)
  renameSync(file, path)
  syncDir(dirname(path))
}

/** An error of writing the chain's file, with what it means for a full or read-only disk. */
export function chainFileError(error: unknown): string {
  const message = (error as Error).message
  const problem = storageProblem(error)
  if (problem === 'full') return `the data dir's disk is full (${message})`
  if (problem === 'read-only') return `the data dir is read-only (${message})`
  return message
}
