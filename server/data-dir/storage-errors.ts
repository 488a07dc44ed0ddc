import { accessSync, closeSync, constants, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { SvcError } from '../../core/errors.js'
import { storageProblem } from '../../core/storage-errors.js'
import { databaseFileName } from './permissions.js'

/**
 * A start that failed on the data dir's storage, said as such (issue 21, minor): the raw error names a file and a
 * code (`ENOSPC: no space left on device, open …/svc.lock`), not what to do.
 */
export function dataDirStorageError(dataDir: string, error: unknown): SvcError | undefined {
  const problem = storageProblem(error)
  if (problem === undefined) return undefined
  const detail = (error as Error).message
  return problem === 'full'
    ? new SvcError(`the data dir ${dataDir} is on a full disk: free space there, or pass --data-dir DIR (${detail})`, {
        cause: error,
      })
    : new SvcError(`the data dir ${dataDir} is read-only: make it writable, or pass --data-dir DIR (${detail})`, {
        cause: error,
      })
}

/** Seconds a client waits before trying a write again on a full or read-only data dir. */
export const storageRetryAfterSeconds = 5

/**
 * What is wrong with the data dir: a full disk, read-only storage, or a write SQLite failed with an I/O error while the
 * data dir takes writes again by the time it is checked (storage repaired under a running svc, or a passing fault).
 */
export type DataDirProblem = 'full' | 'read-only' | 'write-failed'

const problemText: Record<DataDirProblem, string> = {
  full: 'the disk is full (free space there, then retry)',
  'read-only': 'it is read-only (make it writable, then retry)',
  'write-failed': 'a write failed with an I/O error, and the data dir takes writes again (retry)',
}

/** A 503 of a request svc could not write for, naming the data dir and what is wrong with it (issue 21 item 4). */
export class StorageUnavailableError extends SvcError {
  override name = 'StorageUnavailableError'
  readonly problem: DataDirProblem
  constructor(dataDir: string, problem: DataDirProblem, cause: unknown) {
    super(`svc could not write to its data dir ${dataDir}: ${problemText[problem]}`, {
      cause,
      status: 503,
      code: 'unavailable',
      retryAfterSeconds: storageRetryAfterSeconds,
    })
    this.problem = problem
  }
}

/**
 * What a failed write says of the data dir at run time: full, read-only, write-failed, or undefined (not the storage's
 * fault). SQLite names a full disk (SQLITE_FULL) but a file made immutable (`chattr +i`) only as SQLITE_IOERR_WRITE
 * (the kernel's EPERM), so an I/O error is checked against the data dir itself: a small file written and removed
 * there. SQLite's I/O error on a data dir found writable is still the storage's (`write-failed`): the write did not
 * happen, and the storage changed between the two (a `chattr -i` mid-request failed one write in CI, answered 500).
 */
export function dataDirProblem(dataDir: string | undefined, error: unknown): DataDirProblem | undefined {
  const named = storageProblem(error)
  if (named !== undefined || dataDir === undefined) return named
  const code = String((error as { code?: unknown } | null)?.code ?? '')
  if (!code.startsWith('SQLITE_IOERR') && code !== 'EPERM' && code !== 'EACCES') return undefined
  return probeDataDir(dataDir) ?? (code.startsWith('SQLITE_IOERR') ? 'write-failed' : undefined)
}

/**
 * Writes and removes a 4 KiB file in `dataDir`, then asks whether the database's own files there may be written: full,
 * read-only, or undefined when both work. The second check finds a dir that takes new files while the database's
 * files are immutable (`chattr -R -i` clears the dir before its files: a write in between failed on the `-wal`).
 */
export function probeDataDir(dataDir: string): 'full' | 'read-only' | undefined {
  const probe = join(dataDir, `.write-probe-${process.pid}`)
  let fd: number | undefined
  try {
    fd = openSync(probe, 'w')
    writeSync(fd, Buffer.alloc(4096))
    for (const name of readdirSync(dataDir))
      if (name.startsWith(databaseFileName)) accessSync(join(dataDir, name), constants.W_OK)
    return undefined
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EPERM' || code === 'EACCES') return 'read-only'
    return storageProblem(error)
  } finally {
    if (fd !== undefined) closeSync(fd)
    try {
      unlinkSync(probe)
    } catch {
      // Never created.
    }
  }
}

/** The error a request answers when svc could not write for it; undefined when the data dir is not at fault. */
export function storageUnavailable(dataDir: string | undefined, error: unknown): StorageUnavailableError | undefined {
  if (dataDir === undefined) return undefined
  const problem = dataDirProblem(dataDir, error)
  return problem === undefined ? undefined : new StorageUnavailableError(dataDir, problem, error)
}
