import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SvcError } from '../core/errors.js'

/**
 * Claims a data dir for one `svc up`: a `svc.lock` file holding the pid. A second start on the same dir is refused
 * while the first runs; a lock left by a process that is gone is taken over.
 * @returns a function that releases the lock.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = join(dataDir, 'svc.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      let released = false
      return () => {
        if (released) return
        released = true
        rmSync(file, { force: true })
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(readFileSync(file, 'utf8').trim())
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid))
        throw new SvcError(`another svc up (pid ${pid}) is using ${dataDir}: stop it first, or pass --data-dir DIR or --ephemeral`)
      rmSync(file, { force: true })
    }
  }
  throw new SvcError(`could not lock ${dataDir}`)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
