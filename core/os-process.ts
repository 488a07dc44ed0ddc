import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'

// What svc asks the OS about other processes: whether one runs, its command line, its parent. Linux reads /proc;
// macOS and the other Unixes ask `ps`; Windows answers only the first and (by `tasklist`) the image name.

/**
 * Whether a process with this id runs. A zombie (a process that exited and that nobody reaped; on Linux) does not:
 * it holds no port and no memory.
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  if (process.platform !== 'linux') return true
  const stat = readProcStat(pid)
  return stat !== undefined && stat.state !== 'Z' && stat.state !== 'X'
}

/** /proc/PID/stat: "PID (COMM) STATE PPID …"; COMM may hold spaces and parentheses, so the fields follow the last ')'. */
function readProcStat(pid: number): { state: string; ppid: number; started: string } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // Field 22 of the whole line (the 20th after COMM and STATE's predecessors): start time, in clock ticks.
    return { state: fields[0] ?? '', ppid: Number(fields[1] ?? ''), started: fields[19] ?? '' }
  } catch {
    return undefined
  }
}

function ps(pid: number, field: 'args' | 'ppid' | 'lstart'): string | undefined {
  try {
    return (
      execFileSync('ps', ['-o', `${field}=`, '-p', String(pid)], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || undefined
    )
  } catch {
    return undefined
  }
}

/**
 * The command line of a running process, one argument per entry (from `ps`, split at spaces); undefined when it is
 * gone or cannot be read. On Windows, only the image name (`anvil.exe`).
 */
export function readCommandLine(pid: number): string[] | undefined {
  try {
    if (process.platform === 'linux') {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean)
      return args.length > 0 ? args : undefined
    }
    if (process.platform === 'win32') {
      const line = execFileSync('tasklist', ['/FI', `PID eq ${pid}`, '/FO', 'CSV', '/NH'], {
        encoding: 'utf8',
        windowsHide: true,
      })
      const image = /^"([^"]+)"/.exec(line.trim())?.[1]
      return image ? [image] : undefined
    }
  } catch {
    return undefined
  }
  return ps(pid, 'args')?.split(/\s+/)
}

/** The parent of a process; undefined when it is gone, or on Windows. */
export function readParentPid(pid: number): number | undefined {
  if (process.platform === 'win32') return undefined
  const ppid = process.platform === 'linux' ? readProcStat(pid)?.ppid : Number(ps(pid, 'ppid'))
  return ppid !== undefined && Number.isInteger(ppid) && ppid > 0 ? ppid : undefined
}

/**
 * When a process started, as the OS tells it (Linux: clock ticks after boot; elsewhere `ps`'s lstart): with the pid, it
 * names one process, even once the OS gives the pid to another. Undefined when it cannot be read.
 */
export function readStartTime(pid: number): string | undefined {
  if (process.platform === 'win32') return undefined
  if (process.platform === 'linux') return readProcStat(pid)?.started || undefined
  return ps(pid, 'lstart')
}
