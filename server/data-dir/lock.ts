import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  anvilPidFileName,
  anvilPidFileNames,
  type StaleAnvil,
  stopStaleAnvil,
  twinAnvilPidFileName,
} from '../../chain/anvil/index.js'
import { isProcessRunning, readCommandLine, readStartTime } from '../../core/os-process.js'
import { SvcError } from '../../core/errors.js'

const lockFileName = 'svc.lock'
/** Ephemeral data dirs are `<tmpdir>/svc-ephemeral-XXXXXX` holding this marker, so no other directory is mistaken for one. */
const ephemeralPrefix = 'svc-ephemeral-'
const ephemeralMarker = '.svc-ephemeral'

/**
 * A lock file: the holder's pid and whether it still holds it (it runs, and the OS did not give its pid to another
 * process since: the start time written beside the pid tells). Undefined when there is no lock (or none readable).
 */
function readLock(file: string): { pid: number; held: boolean } | undefined {
  try {
    const [first = '', started] = readFileSync(file, 'utf8').trim().split(/\s+/)
    const pid = Number(first)
    if (!Number.isInteger(pid) || pid <= 0) return undefined
    return { pid, held: isLockHolder(pid, started) }
  } catch {
    return undefined
  }
}

/** Whether `pid` runs and is the process that wrote the lock: the same start time, or, for an older lock, a Node process. */
function isLockHolder(pid: number, started: string | undefined): boolean {
  if (!isProcessRunning(pid)) return false
  const now = readStartTime(pid)
  if (started !== undefined && now !== undefined) return now === started
  const command = readCommandLine(pid)?.[0]
  return command === undefined || /(?:^|[\\/])(?:node|svc)(?:\.exe)?$/i.test(command)
}

const lockContent = () => `${process.pid} ${readStartTime(process.pid) ?? ''}`.trim()

export type DataDirLock = {
  /** The Anvil a crashed run on this data dir left behind, now stopped. */
  staleAnvil: StaleAnvil | undefined
  /** The twins' Anvils a crashed run on this data dir left behind, now stopped. */
  staleTwinAnvils: StaleAnvil[]
  /** Where this run keeps its Anvil's pid. */
  anvilPidFile: string
  /** Where this run keeps the pid of a twin's Anvil (by the twin's name). */
  twinAnvilPidFile(twin: string): string
  /** Releases the lock. */
  release(): void
}

/**
 * Claims a data dir for one sandbox: a `svc.lock` file holding the pid. A second start on the same dir is refused
 * while the first runs; a lock left by a process that is gone is taken over, and the Anvil that run left behind
 * (its pid in `anvil.pid`) is stopped.
 */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const file = join(dataDir, lockFileName)
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${lockContent()}\n`, { flag: 'wx', mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const lock = readLock(file)
      const pid = lock?.pid
      if (lock?.held)
        throw new SvcError(
          `another svc up (pid ${pid}) is using ${dataDir}: stop it first, or pass --data-dir DIR or --ephemeral`,
        )
      rmSync(file, { force: true })
      continue
    }
    const anvilPidFile = join(dataDir, anvilPidFileName)
    // We hold the lock: an Anvil named in the data dir belongs to a run that is over (the twins' too, whether this
    // run starts them or not).
    const [staleAnvil, ...twins] = await Promise.all(
      anvilPidFileNames.map((name) => stopStaleAnvil(join(dataDir, name))),
    )
    let released = false
    return {
      staleAnvil,
      staleTwinAnvils: twins.filter((stale) => stale !== undefined),
      anvilPidFile,
      twinAnvilPidFile: (twin) => join(dataDir, twinAnvilPidFileName(twin)),
      release() {
        if (released) return
        released = true
        rmSync(file, { force: true })
      },
    }
  }
  throw new SvcError(`could not lock ${dataDir}`)
}

/** A fresh ephemeral data dir in the OS temporary directory, locked; `release` removes it. */
export async function createEphemeralDataDir(): Promise<DataDirLock & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), ephemeralPrefix))
  writeFileSync(join(dataDir, ephemeralMarker), '')
  const lock = await lockDataDir(dataDir)
  return {
    ...lock,
    dataDir,
    release() {
      lock.release()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * Cleans up after ephemeral sandboxes that crashed: for each ephemeral data dir whose lock names a process that is
 * gone, stops the Anvil it left behind and removes the directory.
 * @returns the Anvils that were stopped
 */
export async function removeStaleEphemeralDataDirs(parent: string = tmpdir()): Promise<StaleAnvil[]> {
  let names: string[]
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(ephemeralPrefix))
  } catch {
    return []
  }
  const stopped: StaleAnvil[] = []
  for (const name of names) {
    const dataDir = join(parent, name)
    try {
      readFileSync(join(dataDir, ephemeralMarker))
    } catch {
      continue
    }
    const lock = readLock(join(dataDir, lockFileName))
    // No lock yet: its sandbox is still starting (or died before it locked; it then holds no Anvil either).
    if (lock === undefined || lock.held) continue
    for (const name of anvilPidFileNames) {
      const anvil = await stopStaleAnvil(join(dataDir, name))
      if (anvil) stopped.push(anvil)
    }
    try {
      rmSync(dataDir, { recursive: true, force: true })
    } catch {
      // Left for the next start: cleaning up must not keep this one from starting.
    }
  }
  return stopped
}
