/**
 * cli/signals.ts `firstSignal`, which `svc up`, `svc serve` and `svc listen` wait on: a child process that loads
 * signal-exit (as execa does when it spawns Anvil) after svc's listener is not killed by the signal it handles, as it
 * was with `process.once`; a second signal exits at once with code 1; `until` takes the listeners away. `stopWithin`
 * bounds the stop that follows.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, expect, test } from 'vitest'
import { firstSignal, stopWithin } from '../../cli/signals.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-signals-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const signals = pathToFileURL(fileURLToPath(new URL('../../cli/signals.ts', import.meta.url))).href
// The signal-exit execa itself loads (v4), by execa's own resolution.
const signalExit = pathToFileURL(
  createRequire(createRequire(import.meta.url).resolve('execa')).resolve('signal-exit'),
).href

/**
 * Runs a child that waits with `wait` (svc's `firstSignal`, or the `process.once` it replaced), then loads signal-exit
 * as execa does (its listener after svc's), says `ready`, and prints the signal it got; `signals` are sent to it once
 * it is ready, each after the line before it was printed.
 */
async function runChild(wait: 'firstSignal' | 'once', sent: NodeJS.Signals[]) {
  const script = join(dir, `${wait}-${sent.length}.mts`)
  writeFileSync(
    script,
    `import { firstSignal } from ${JSON.stringify(signals)}
import { onExit } from ${JSON.stringify(signalExit)}
const say = (line: string) => void process.stderr.write(line + '\\n')
const signalled = ${
      wait === 'firstSignal'
        ? 'firstSignal(say)'
        : "new Promise((resolve) => { for (const name of ['SIGTERM', 'SIGINT']) process.once(name, resolve) })"
    }
onExit(() => {})
// Alive as svc's servers keep it, until the signal (or, for a second signal, still busy with a drain or a stop).
const alive = setInterval(() => {}, 1_000)
process.stdout.write('ready\\n')
process.stdout.write(String(await signalled) + '\\n')
if (${sent.length === 1}) clearInterval(alive)
`,
  )
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const lines: string[] = []
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  const queue = [...sent]
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line)
    const next = queue.shift()
    if (next) child.kill(next)
  })
  const [code, signal] = await exited
  return { code, signal, lines, stderr }
}

test('a signal handled by firstSignal does not let signal-exit, loaded after it, re-raise it; with process.once it did', async () => {
  expect(await runChild('firstSignal', ['SIGTERM'])).toMatchObject({
    code: 0,
    signal: null,
    lines: ['ready', 'SIGTERM'],
  })
  // What `svc up` and `svc listen` did: the once listener is gone when signal-exit looks, so it kills the process.
  expect(await runChild('once', ['SIGTERM'])).toMatchObject({ code: null, signal: 'SIGTERM' })
})

test('a second signal exits at once with code 1, saying so', async () => {
  const result = await runChild('firstSignal', ['SIGINT', 'SIGTERM'])
  expect(result).toMatchObject({ code: 1, lines: ['ready', 'SIGINT'] })
  expect(result.stderr).toBe('svc: SIGTERM again: exiting without waiting\n')
})

test('until: the listeners go once it is aborted, a moment later', async () => {
  const counts = () => [process.listenerCount('SIGTERM'), process.listenerCount('SIGHUP')]
  const [term, hup] = counts()
  const until = new AbortController()
  void firstSignal(() => {}, { signals: ['SIGTERM', 'SIGHUP'], until: until.signal })
  expect(counts()).toEqual([term! + 1, hup! + 1])
  until.abort()
  // Not within the abort (the signal being handled may be what aborted it).
  expect(counts()).toEqual([term! + 1, hup! + 1])
  await new Promise((resolve) => setImmediate(resolve))
  expect(counts()).toEqual([term, hup])
})

test('stopWithin: a stop that finishes in time returns; one that hangs exits 1 after the bound, saying so', async () => {
  const said: string[] = []
  const exits: number[] = []
  const options = { timeoutMs: 50, exit: (code: number) => void exits.push(code) }
  await stopWithin(Promise.resolve(), (line) => said.push(line), options)
  expect({ said, exits }).toEqual({ said: [], exits: [] })
  await stopWithin(new Promise<void>(() => {}), (line) => said.push(line), options)
  expect({ said, exits }).toEqual({
    said: ['svc: the stop did not finish within 0.05 s: exiting without waiting'],
    exits: [1],
  })
})
