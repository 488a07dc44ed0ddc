import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

export type SvcProcess = {
  ready: Record<string, any>
  child: ChildProcess
  readyMs: number
  /** What svc wrote to stderr so far. */
  stderr(): string
  stop(): Promise<number | null>
}

/** Runs `svc up --json …` as a real child process and resolves with its ready line. */
export async function startSvcProcess(
  args: string[] = [],
  env: NodeJS.ProcessEnv = process.env,
  options: { ephemeral?: boolean; cwd?: string } = {},
): Promise<SvcProcess> {
  const started = performance.now()
  const child = spawn(
    process.execPath,
    [
      svcBin,
      'up',
      '--json',
      ...(options.ephemeral === false ? [] : ['--ephemeral']),
      '--port',
      '0',
      '--auto-verify',
      ...args,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: options.cwd },
  )
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const lines = createInterface({ input: child.stdout! })
  const ready = await new Promise<Record<string, any>>((resolve, reject) => {
    lines.once('line', (line) => {
      try {
        resolve(JSON.parse(line))
      } catch {
        reject(new Error(`svc up printed a line that is not JSON: ${line}`))
      }
    })
    child.once('exit', (code) => reject(new Error(`svc up exited with ${code} before it was ready: ${stderr.trim()}`)))
  })
  const readyMs = performance.now() - started
  return {
    ready,
    child,
    readyMs,
    stderr: () => stderr,
    stop() {
      // Already gone (it exited, or a test killed it).
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
      return new Promise((resolve) => {
        child.once('exit', (code) => resolve(code))
        child.kill('SIGTERM')
      })
    },
  }
}
