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

/**
 * Ink draws nothing until exit when it thinks it runs in CI: is-in-ci, `CI` or `CONTINUOUS_INTEGRATION` set to
 * anything but "0" or "false". A terminal user has neither; svc asks the same package.
 */
const ciVariables = Object.keys(process.env).filter((name) => name === 'CI' || name === 'CONTINUOUS_INTEGRATION')

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
    ['q', 'q', []],
    // Not CI for Ink (is-in-ci), so not for svc either: the dashboard shows (svc's own check once printed URLs here).
    ['Ctrl-C', 'C-c', ['CI=0', 'CI_PIPELINE_ID=1']],
  ])(
    'shows the dashboard, and %s (tmux key %s) quits: the process exits with 0 (environment %j)',
    async (_name, key, extraEnv) => {
      const session = `svc-up-${process.pid}-${key}`
      const exitFile = join(dir, `exit-code-${key}`)
      // No saved session (a fresh config directory): the panels that need one say how to log in.
      const command = [
        'env',
        ...ciVariables.flatMap((name) => ['-u', name]),
        ...extraEnv,
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
    },
  )

  test('with --seed in 80×24: the new API key whole and marked shown once, the gateway, chain manager and facilitator URLs, no line cut; arrows, Tab, Shift-Tab, ?, Esc, k and r', async () => {
    const session = `svc-up-${process.pid}-seed`
    const exitFile = join(dir, 'exit-code-seed')
    const command = [
      'env',
      ...ciVariables.flatMap((name) => ['-u', name]),
      `SVC_CONFIG_DIR=${quote(join(dir, 'config-seed'))}`,
      quote(process.execPath),
      quote(svcBin),
      'up --ephemeral --port 0 --seed fixtures/demo-seed.yaml',
      `; echo $? > ${quote(exitFile)}`,
    ].join(' ')
    expect(tmux('new-session', '-d', '-x', '80', '-y', '24', '-s', session, '-c', repo, command).stderr).toBe('')

    const ready = () =>
      /block #\d/.test(screen(session)) &&
      /1,000 USDC/.test(screen(session)) &&
      screen(session).includes('POST   /echo') &&
      !screen(session).includes('loading…')
    await eventually(session, 'no seeded dashboard', ready, 60_000)
    const frame = screen(session)
    expect(frame).toMatch(/^New API key \(seed\) {2}shown once: copy it now/m)
    expect(frame).toMatch(/^ {2}svc_sandbox_[\w-]{32} {2}demo automation \(development\)$/m)
    expect(frame).toMatch(/^ {2}Demo Weather {2}http:\/\/weather\.dev\.localhost:\d+$/m)
    // Under the wallet: the seed's pay-to address (nothing paid to it yet on a fresh chain) and the session's revenue.
    await eventually(session, 'no pay-to line', () => /revenue 0 USDC since/.test(screen(session)), 10_000)
    expect(screen(session)).toMatch(
      /^ {2}pay-to 0x90F7…b906 {2}0 USDC {2}· {2}revenue 0 USDC since \d\d:\d\d:\d\d \(0 paid\)$/m,
    )
    expect(frame).toMatch(/^ {2}chain manager http:\/\/127\.0\.0\.1:\d+ · facilitator http:\/\/127\.0\.0\.1:\d+$/m)
    // The seed verified its account: the verification mail is spent, counted rather than listed.
    expect(frame).toMatch(/^Outbox {2}1 mail, all used$/m)
    expect(frame).not.toContain('svc verify-email')
    expect(frame).toMatch(/ f {2}fund wallet · {2}r {2}refresh · {2}tab {2}panels · {2}\? {2}help · {2}q {2}quit$/m)
    // Ink cuts a line that does not fit with "…": none is.
    for (const line of frame.split('\n')) expect(line, line).not.toMatch(/…$/)
    expect(frame).not.toContain('▸')

    // The keys, as a person presses them.
    const press = async (key: string, what: string, check: (text: string) => boolean) => {
      tmux('send-keys', '-t', session, key)
      await eventually(session, `${key}: ${what}`, () => check(screen(session)), 10_000)
    }
    await press('Down', 'an arrow focuses the APIs', (text) => /^▸ APIs & endpoints {2}1 API, 3 endpoints/m.test(text))
    await press('Tab', 'Tab moves to the settlements', (text) => /^▸ Settlements/m.test(text) && !/^▸ APIs/m.test(text))
    await press('Tab', 'Tab moves to the outbox', (text) => /^▸ Outbox/m.test(text))
    await press('BTab', 'Shift-Tab moves back', (text) => /^▸ Settlements/m.test(text))
    await press('?', 'the help', (text) => /^Keys {2}\? or Esc closes$/m.test(text))
    const help = screen(session)
    expect(help).toMatch(/^ {2}Tab \/ Shift-Tab {2}move between APIs, Settlements and Outbox \(▸ marks it\)$/m)
    expect(help).toMatch(/^ {2}k +hide the new API key, or show it again$/m)
    expect(help).not.toMatch(/^▸ Settlements/m)
    await press('Escape', 'Esc closes the help', (text) => /^▸ Settlements/m.test(text) && !text.includes('Esc closes'))
    // `k`: the banner of the new key (read, copied) gives its lines back.
    await press('k', 'k hides the new key', (text) => !text.includes('New API key') && text.includes('Demo Weather'))
    await press('r', 'r says when it refreshed', (text) => / r {2}refreshed \d\d:\d\d:\d\d · /.test(text))
    for (const line of screen(session).split('\n')) expect(line, line).not.toMatch(/…$/)

    tmux('send-keys', '-t', session, 'q')
    await eventually(session, 'svc up did not exit', () => !running(session), 30_000)
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('0')
  })
})
