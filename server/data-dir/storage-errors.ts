import { SvcError } from '../../core/errors.js'
import { storageProblem } from '../../core/storage-errors.js'

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
