/**
 * Load from wrk (https://github.com/wg/wrk, Debian's `wrk`), the C load generator, where it is installed: a request
 * costs it a few µs of CPU where the Node generator (test/bench/raw-load.ts) takes ~25-55, and on 2 shared cores that
 * CPU is taken from the processes measured. Its threads are spread over the ports (one port per thread, round robin),
 * each connection pipelines `depth` GETs; a Lua `done` prints the summary as JSON, bash's `times` wrk's CPU.
 */
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type WrkLoadOptions = {
  /** The processes' ports on 127.0.0.1: thread `i` loads `ports[i % ports.length]`. */
  ports: readonly number[]
  host: string
  path: string
  seconds: number
  /** wrk's threads. @defaultValue 3 */
  threads?: number
  /** Open connections (spread over the threads). @defaultValue 33 */
  connections?: number
  /** Requests in flight on each connection (HTTP/1.1 pipelining). @defaultValue 4 */
  depth?: number
  /** The status every answer should have; the others are counted. */
  status: number
}

export type WrkLoadResult = {
  /** Answers received. */
  requests: number
  wallMs: number
  /** Answers whose status was not `status`. */
  others: number
  /** Connect, read, write errors and timeouts. */
  socketErrors: number
  /** wrk's CPU (user + system), ms. */
  cpuMs: number
}

/** wrk's version line (`wrk 4.1.0 [epoll] …`), or undefined where it is not installed. */
export function wrkVersion(): string | undefined {
  try {
    // `wrk -v` prints its version and usage, and exits 1.
    execFileSync('wrk', ['-v'], { stdio: 'pipe' })
  } catch (error) {
    const out = String((error as { stdout?: Buffer }).stdout ?? '')
    const line = out.split('\n').find((l) => l.startsWith('wrk '))
    if (line) return line.split(' [')[0]
  }
  return undefined
}

const script = (ports: readonly number[], depth: number, expectedStatus: number) => `
local ports = { ${ports.join(', ')} }
local threads = {}
function setup(thread)
  local port = ports[(#threads % #ports) + 1]
  thread.addr = wrk.lookup("127.0.0.1", tostring(port))[1]
  table.insert(threads, thread)
end
function init(args)
  local one = wrk.format(nil)
  req = string.rep(one, ${depth})
  others = 0
end
function request() return req end
function response(status, headers, body)
  if status ~= ${expectedStatus} then others = others + 1 end
end
function done(summary, latency, requests)
  local e = summary.errors
  local others = 0
  for _, thread in ipairs(threads) do others = others + thread:get("others") end
  io.write(string.format('WRK_JSON {"requests":%d,"duration_us":%d,"others":%d,"socket_errors":%d}\\n',
    summary.requests, summary.duration, others, e.connect + e.read + e.write + e.timeout))
end
`

/** Runs wrk for `seconds` against the ports and resolves with what it counted. */
export async function wrkLoad(options: WrkLoadOptions): Promise<WrkLoadResult> {
  const { ports, threads = 3, connections = 33, depth = 4 } = options
  const dir = mkdtempSync(join(tmpdir(), 'svc-wrk-'))
  try {
    const file = join(dir, 'pipeline.lua')
    writeFileSync(file, script(ports, depth, options.status))
    const args = [
      `-t${threads}`,
      `-c${connections}`,
      `-d${options.seconds}s`,
      '-H',
      `Host: ${options.host}`,
      '-s',
      file,
      `http://127.0.0.1:${ports[0]}${options.path}`,
    ]
    // bash's `times` prints its children's CPU after wrk exits (its second line: user, then system).
    const child = spawn('bash', ['-c', 'wrk "$@" && times', 'bash', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    const json = out.match(/^WRK_JSON (.*)$/m)?.[1]
    if (code !== 0 || !json) throw new Error(`wrk failed (${code}): ${err.trim() || out.trim()}`)
    const summary = JSON.parse(json) as { requests: number; duration_us: number; others: number; socket_errors: number }
    const seconds = (text: string) => {
      const [, m, s] = text.match(/(\d+)m([\d.]+)s/) ?? []
      return Number(m) * 60 + Number(s)
    }
    const children = out.trim().split('\n').at(-1)!.trim().split(/\s+/)
    return {
      requests: summary.requests,
      wallMs: summary.duration_us / 1000,
      others: summary.others,
      socketErrors: summary.socket_errors,
      cpuMs: (seconds(children[0]!) + seconds(children[1]!)) * 1000,
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
