import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import type { lookup as dnsLookup } from 'node:dns'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { Agent, fetch as undiciFetch } from 'undici'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))

export type ServeProcess = {
  ready: Record<string, any>
  child: ChildProcess
  /** What svc wrote to stderr so far. */
  stderr(): string
  /** Resolves with the exit code once the process is gone. */
  exited: Promise<number | null>
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>
}

/**
 * Runs `svc serve --json --port 0 …` as a real child process and resolves with its ready line. `detached`: in a
 * process group of its own, as a service manager runs it (signal the group with `process.kill(-pid, signal)`).
 */
export function startServeProcess(
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  options: { detached?: boolean } = {},
): Promise<ServeProcess> {
  return serveChild(
    spawn(process.execPath, [svcBin, 'serve', '--json', '--port', '0', ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached === true,
    }),
  )
}

/**
 * Runs a shell command that starts `svc serve` (a README's block) with bash, its `svc serve` made this checkout's
 * `exec node bin/svc.js serve --json` (so the child is svc itself: a signal reaches it), and resolves with its ready line.
 */
export function startServeScript(script: string, env: NodeJS.ProcessEnv = process.env): Promise<ServeProcess> {
  const command = script.replace(
    /^svc serve/m,
    `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(svcBin)} serve --json`,
  )
  return serveChild(spawn('bash', ['-euo', 'pipefail', '-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'] }))
}

async function serveChild(child: ChildProcess): Promise<ServeProcess> {
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const lines = createInterface({ input: child.stdout! })
  const ready = await new Promise<Record<string, any>>((resolve, reject) => {
    lines.once('line', (line) => {
      try {
        resolve(JSON.parse(line))
      } catch {
        reject(new Error(`svc serve printed a line that is not JSON: ${line}`))
      }
    })
    void exited.then((code) => reject(new Error(`svc serve exited with ${code} before it was ready: ${stderr.trim()}`)))
  })
  return {
    ready,
    child,
    stderr: () => stderr,
    exited,
    stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
  }
}

/** `svc serve …` that is expected to fail before it starts: its exit code and stderr. */
export function runServe(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, [svcBin, 'serve', '--port', '0', ...args], {
    env,
    encoding: 'utf8',
    timeout: 20_000,
  })
  return { code: result.status, stderr: result.stderr, stdout: result.stdout }
}

/**
 * `fetch` as a client of a server behind DNS: every host name resolves to 127.0.0.1 (so `{slug}.dev.pay.test` reaches
 * the server with that Host header), from the loopback source address `from` (127.0.0.2 plays a proxy the server
 * trusts, 127.0.0.1 anyone else).
 */
export function fetchFrom(from: string): typeof globalThis.fetch {
  const dispatcher = new Agent({
    localAddress: from,
    connect: {
      lookup: ((_name: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) =>
        options?.all
          ? callback(null, [{ address: '127.0.0.1', family: 4 }])
          : callback(null, '127.0.0.1', 4)) as unknown as typeof dnsLookup,
    },
  })
  return ((input: Parameters<typeof globalThis.fetch>[0], init?: RequestInit) => {
    if (input instanceof Request) {
      const { method, headers, body, signal, url } = input
      return undiciFetch(url, {
        method,
        headers,
        body,
        signal,
        ...(body ? { duplex: 'half' } : {}),
        ...(init as object),
        dispatcher,
      } as never)
    }
    return undiciFetch(input as never, { ...(init as object), dispatcher } as never)
  }) as unknown as typeof globalThis.fetch
}
