import { spawn } from 'node:child_process'

export type Watchdog = {
  /** The watchdog's own process id. */
  pid: number | undefined
  /** Ends the watchdog without touching the process it guards (call it once that process has exited). */
  stop(): void
}

/**
 * What the watchdog runs, with the guarded pid as `$1`: wait until its stdin ends (this process is gone: whatever
 * way it died, the OS closes the pipe), then SIGTERM the pid, and SIGKILL it if it is still there 1.5 s later.
 */
const shellScript = [
  'read -r _',
  'kill -TERM "$1" 2>/dev/null || exit 0',
  'i=0',
  'while [ "$i" -lt 15 ] && kill -0 "$1" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done',
  'kill -KILL "$1" 2>/dev/null',
].join('\n')

/** The same for Windows, where there is no sh; Node's `process.kill` terminates the process there. */
const nodeScript = `
const pid = Number(process.argv[1])
process.stdin.resume()
process.stdin.on('error', () => {})
process.stdin.on('close', () => {
  try { process.kill(pid) } catch {}
  process.exit(0)
})`

/**
 * Starts a tiny process that stops `pid` when this process is gone, even after a `kill -9` (which no handler in
 * this process can see). It is detached (its own process group, no terminal), so it outlives this process; it
 * learns that this process died from its stdin, a pipe only this process holds, ending. Nothing in it keeps this
 * process's event loop alive.
 */
export function startWatchdog(pid: number): Watchdog {
  const child =
    process.platform === 'win32'
      ? spawn(process.execPath, ['-e', nodeScript, String(pid)], {
          stdio: ['pipe', 'ignore', 'ignore'],
          detached: true,
          windowsHide: true,
        })
      : spawn('/bin/sh', ['-c', shellScript, 'svc-anvil-watchdog', String(pid)], {
          stdio: ['pipe', 'ignore', 'ignore'],
          detached: true,
        })
  // A watchdog that could not start must not take svc down; the stale-pid check at the next start remains.
  child.on('error', () => {})
  child.stdin!.on('error', () => {})
  child.unref()
  ;(child.stdin as unknown as { unref?: () => void }).unref?.()
  let stopped = false
  return {
    pid: child.pid,
    stop() {
      if (stopped) return
      stopped = true
      child.kill('SIGKILL')
      child.stdin!.destroy()
    },
  }
}
