import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const svcBin = join(repo, 'bin/svc.js')
const hasTmux = spawnSync('tmux', ['-V']).status === 0

/** A tmux server of this test's own (`-L`), so nothing touches the user's sessions. */
const socket = `svc-dashboard-test-${process.pid}`
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
const screen = (session: string) => tmux('capture-pane', '-p', '-t', session).stdout ?? ''
const running = (session: string) => tmux('has-session', '-t', session).status === 0

/** Ink draws nothing until exit when it thinks it runs in CI (`CI`, `CONTINUOUS_INTEGRATION`, `CI_*`): a terminal user has none of these. */
const ciVariables = Object.keys(process.env).filter((name) => name === 'CI' || name === 'CONTINUOUS_INTEGRATION' || name.startsWith('CI_'))

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-dashboard-tmux-'))
})
afterAll(() => {
  tmux('kill-server')
  rmSync(dir, { recursive: true, force: true })
})

/** Polls `check` every 100 ms (each poll runs tmux) until it holds; fails after `timeoutMs` with the screen. */
async function eventually(session: string, what: string, check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms; the screen was:\n${screen(session)}`)
    await delay(100)
  }
}

const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

describe.skipIf(!hasTmux)('svc up in a terminal', () => {
  test.each([
    ['q', 'q'],
    ['Ctrl-C', 'C-c'],
  ])('shows the dashboard, and %s quits: the process exits with 0', async (_name, key) => {
    const session = `svc-up-${process.pid}-${key}`
    const exitFile = join(dir, `exit-code-${key}`)
    // No saved session (a fresh config directory): the panels that need one say how to log in.
    const command = [
      'env',
      ...ciVariables.flatMap((name) => ['-u', name]),
      `SVC_CONFIG_DIR=${quote(join(dir, 'config'))}`,
      quote(process.execPath),
      quote(svcBin),
      'up --ephemeral --port 0',
      `; echo $? > ${quote(exitFile)}`,
    ].join(' ')
    const started = tmux('new-session', '-d', '-x', '100', '-y', '30', '-s', session, '-c', repo, command)
    expect(started.stderr).toBe('')

    await eventually(session, 'no chain panel', () => /chain 845320402 .*block #\d/.test(screen(session)), 60_000)
    const frame = screen(session)
    expect(frame).toContain('svc')
    expect(frame).toMatch(/^chain 845320402 \(eip155:845320402\) · block #\d+ · RPC http:\/\/127\.0\.0\.1:\d+/m)
    expect(frame).toContain('svc signup --sandbox')
    expect(frame).toMatch(/ q {2}quit/)

    tmux('send-keys', '-t', session, key)
    // `svc up` stops the sandbox after the dashboard: Anvil and the servers, then the process ends.
    await eventually(session, 'svc up did not exit', () => !running(session), 30_000)
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('0')
  })
})
