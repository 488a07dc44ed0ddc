import '../../core/polyfill.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { Instance } from 'prool'

export type AnvilInstanceParameters = {
  binary: string
  /** Anvil's options, as prool names them (camelCase): see {@link anvilArgs}. */
  args: Record<string, unknown>
  host: string
  port: number
  /** Called with the process as soon as it is spawned (before it listens): its pid, its exit. */
  onSpawn(child: ChildProcess): void
}

/**
 * Anvil as a prool instance that svc spawns itself, in a session (process group) of its own: a signal sent to svc's
 * process group (a terminal's Ctrl-C, a CI runner's cancel, `kill -- -PGID`, systemd's `KillMode=control-group`,
 * `docker stop`) reaches svc, not Anvil, and svc saves the chain and stops Anvil itself. prool's own `Instance.anvil`
 * spawns through execa in the caller's process group, with no way to ask otherwise (issue 35 A/B). The pid is this
 * spawn's own (`onSpawn`), not prool's internals. A watchdog (chain/anvil/watchdog.ts) stops Anvil when svc dies
 * without stopping it.
 *
 * It resolves when Anvil says "Listening on" (its port, with port 0 the one it chose, is then the instance's `port`);
 * it rejects with what Anvil wrote to stderr when Anvil writes there before it listens (a Warning excepted) or exits.
 * `stop` sends SIGTERM, SIGKILL after 5 s, and resolves once the process has exited.
 */
export const detachedAnvil = Instance.define((parameters: AnvilInstanceParameters) => {
  const { binary, args, host, port, onSpawn } = parameters
  let child: ChildProcess | undefined
  let exited: Promise<void> = Promise.resolve()
  return {
    name: 'anvil',
    host,
    port,
    start(_, { emitter, setEndpoint }) {
      let resolve!: () => void
      let reject!: (error: Error) => void
      const promise = new Promise<void>((resolve_, reject_) => {
        resolve = resolve_
        reject = reject_
      })
      const process_ = spawn(binary, anvilArgs(args), {
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, FOUNDRY_DISABLE_NIGHTLY_WARNING: 'true' },
        windowsHide: true,
      })
      child = process_
      // A binary that could not be run emits 'error' and no 'exit'.
      exited = new Promise((done) => {
        process_.once('exit', () => done())
        process_.once('error', () => done())
      })
      endOnExit(process_)
      let listening = false
      let stdout = ''
      let failure = ''
      process_.stdout!.setEncoding('utf8')
      process_.stderr!.setEncoding('utf8')
      // Both pipes are read for as long as Anvil runs (a full pipe would block it); prool keeps the last messages.
      process_.stdout!.on('data', (chunk: string) => {
        const message = stripColors(chunk)
        emitter.emit('message', message)
        emitter.emit('stdout', message)
        if (listening) return
        stdout = `${stdout}${message}`.slice(-4_096)
        const banner = /Listening on [^\s]*:(\d+)/.exec(stdout)
        if (!banner) return
        listening = true
        setEndpoint?.({ port: Number(banner[1]) })
        emitter.emit('listening')
        resolve()
      })
      process_.stderr!.on('data', (chunk: string) => {
        const message = stripColors(chunk)
        emitter.emit('message', message)
        emitter.emit('stderr', message)
        if (listening || message.includes('Warning')) return
        // Anvil will not start: its whole reason is kept until it has exited.
        if (failure === '') terminate(process_)
        failure += message
      })
      process_.once('error', (error) => {
        if (!listening) reject(new Error(`could not run it: ${error.message}`, { cause: error }))
      })
      process_.once('exit', (code, signal) => {
        emitter.emit('exit', code, signal)
        if (!listening) reject(new Error(failure.trim() || `exited (${signal ?? `code ${code}`}) before it listened`))
      })
      onSpawn(process_)
      return promise
    },
    async stop() {
      if (child) await endProcess(child, exited)
    },
  }
})

/** SIGTERM (Anvil dumps its state and exits), then SIGKILL if it is still there 5 s later; resolves once it exited. */
async function endProcess(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return
  terminate(child)
  let timer: NodeJS.Timeout | undefined
  await Promise.race([
    exited,
    new Promise<void>((resolve) => {
      timer = setTimeout(() => resolve(void child.kill('SIGKILL')), 5_000)
    }),
  ])
  clearTimeout(timer)
  await exited
}

/** Anvils running now, told to stop if this process exits without stopping them. */
const running = new Set<ChildProcess>()

/**
 * svc exiting without stopping Anvil (a second signal, `process.exit`): Anvil is told at once, as execa's cleanup did;
 * the watchdog covers a svc killed outright. One listener for every Anvil of the process.
 */
function endOnExit(child: ChildProcess): void {
  if (running.size === 0) process.on('exit', endAll)
  running.add(child)
  const forget = () => {
    running.delete(child)
    if (running.size === 0) process.off('exit', endAll)
  }
  child.once('exit', forget)
  child.once('error', forget)
}

function endAll(): void {
  for (const child of running) terminate(child)
}

function terminate(child: ChildProcess): void {
  try {
    child.kill('SIGTERM')
  } catch {}
}

/**
 * Anvil's command line from prool's option names, as prool's own (unexported) `toArgs` writes it: `chainId: 1` is
 * `--chain-id 1`, `true` a bare flag, `false` `--flag false`, `undefined` nothing, an array its items joined by commas.
 * The stale-Anvil check (pid-file.ts) reads `--chain-id N` back from the process's command line.
 */
export function anvilArgs(options: Record<string, unknown>): string[] {
  return Object.entries(options).flatMap(([key, value]) => {
    if (value === undefined) return []
    const flag = `--${key.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`
    if (value === true) return [flag]
    if (value === false) return [flag, 'false']
    const text = Array.isArray(value) ? value.join(',') : String(value)
    return text === '' ? [flag] : [flag, text]
  })
}

/** Anvil colours its banner on some terminals; prool strips the colours from the messages it keeps. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escape sequences start with ESC
const ansiColors = /[\u001b\u009b][[()#;?]*(?:[0-9]{1,4}(?:;[0-9]{0,4})*)?[0-9A-ORZcf-nqry=><]/g
const stripColors = (message: string) => message.replace(ansiColors, '')
