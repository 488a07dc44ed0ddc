/**
 * Issue 20, item 5, without a sandbox: the list window (scrolling, "↑ n above"), the line budget that keeps the
 * settlements on screen, the keys, and what time decides (fake timers): the new-key banner hides itself after 10
 * minutes, `k` hides and shows it, `r` says "refreshing…" then "refreshed HH:MM:SS".
 */
import { once } from 'node:events'
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Text } from 'ink'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { App } from '../../tui/App.js'
import { formatClock } from '../../tui/format.js'
import { useKeys } from '../../tui/hooks/use-keys.js'
import { allocateRows, maxOffset, scrollWindow } from '../../tui/layout.js'
import type { DashboardOptions } from '../../tui/model.js'
import { linesOf, now, usdc } from './dashboard-fixtures.js'

let stopServer: (() => Promise<void>) | undefined
afterEach(async () => {
  cleanup()
  vi.useRealTimers()
  await stopServer?.()
  stopServer = undefined
})

describe('the list window', () => {
  const items = [...Array(10).keys()]

  test('from the top: the first items and "… n more"; scrolled: "↑ n above" takes a line', () => {
    expect(scrollWindow(items, 4)).toEqual({ shown: [0, 1, 2], above: 0, hidden: 7 })
    expect(scrollWindow(items, 4, 10, 2)).toEqual({ shown: [2, 3], above: 2, hidden: 6 })
    // At the end: no "more" line, the last items fill it.
    expect(scrollWindow(items, 4, 10, 7)).toEqual({ shown: [7, 8, 9], above: 7, hidden: 0 })
    // Past the end: clamped to it.
    expect(scrollWindow(items, 4, 10, 99)).toEqual({ shown: [7, 8, 9], above: 7, hidden: 0 })
    expect(maxOffset(10, 4)).toBe(7)
    // Everything fits, or too few lines to scroll: from the top.
    expect(scrollWindow(items, 10, 10, 3)).toEqual({ shown: items, above: 0, hidden: 0 })
    expect(maxOffset(10, 2)).toBe(0)
  })

  test('a page of a longer list scrolls to its last loaded item; the rest stays "… n more"', () => {
    // 10 loaded of 16, 9 lines: at the end, "↑ 3 above", 7 items, "… 6 more".
    expect(maxOffset(10, 9, 16)).toBe(3)
    expect(scrollWindow(items, 9, 16, 50)).toEqual({ shown: [3, 4, 5, 6, 7, 8, 9], above: 3, hidden: 6 })
  })

  test('lines: one for each list, then the settlements’ reserve, then the focused list, then in order', () => {
    // 80×24 with four APIs of three endpoints and 12 settlements: 13 lines for the lists.
    expect(allocateRows(13, [16, 12, 1], { reserve: [0, 4, 0] })).toEqual([8, 4, 1])
    // The settlements focused: they take what the APIs took.
    expect(allocateRows(13, [16, 12, 1], { reserve: [0, 4, 0], priority: [1] })).toEqual([1, 11, 1])
    // A list that wants nothing (every mail used) gets no line.
    expect(allocateRows(5, [10, 10, 0], { reserve: [0, 4, 0] })).toEqual([1, 4, 0])
  })
})

test('useKeys: Tab / Shift-Tab, the arrows, pages, Home / End, ?, Esc and k; while the help is open only ?, Esc and q act', async () => {
  const calls: string[] = []
  const actions = {
    onQuit: () => calls.push('quit'),
    onFaucet: () => calls.push('faucet'),
    onRefresh: () => calls.push('refresh'),
    onMove: (step: number) => calls.push(`move ${step}`),
    onScroll: (lines: number, pages?: boolean) => calls.push(`scroll ${lines}${pages ? ' page' : ''}`),
    onJump: (to: string) => calls.push(`jump ${to}`),
    onHelp: () => calls.push('help'),
    onEscape: () => calls.push('escape'),
    onToggleKeys: () => calls.push('keys'),
  }
  function Probe({ helpOpen }: { helpOpen: boolean }) {
    useKeys({ ...actions, helpOpen })
    return <Text>keys</Text>
  }
  const { stdin, rerender } = render(<Probe helpOpen={false} />)
  await vi.waitFor(() => expect(stdin.listenerCount('readable')).toBeGreaterThan(0))
  const keys = ['\t', '\u001b[Z', '\u001b[A', '\u001b[B', '\u001b[5~', '\u001b[6~', '\u001b[H', '\u001b[F', 'k', '?']
  for (const key of keys) stdin.write(key)
  const expected = [
    'move 1',
    'move -1',
    'scroll -1',
    'scroll 1',
    'scroll -1 page',
    'scroll 1 page',
    'jump top',
    'jump bottom',
    'keys',
    'help',
  ]
  await vi.waitFor(() => expect(calls).toEqual(expected))
  rerender(<Probe helpOpen />)
  for (const key of ['\t', '\u001b[B', 'f', 'r', 'k']) stdin.write(key)
  // A lone Esc is told from the start of a sequence by what follows it: it goes alone.
  stdin.write('\u001b')
  await vi.waitFor(() => expect(calls.slice(expected.length)).toEqual(['escape']))
  stdin.write('q')
  await vi.waitFor(() => expect(calls.slice(expected.length)).toEqual(['escape', 'quit']))
})

describe('what time decides (fake timers)', () => {
  const key = `svc_sandbox_${'Ab3_'.repeat(8)}`

  /**
   * The dashboard against a server that answers every request with a 503 (every panel says so), once `held` lets it:
   * a refresh then takes as long as the test wants. A seed's new key is shown.
   */
  async function dashboard(refreshMs = 1000) {
    const gate = { held: undefined as Promise<void> | undefined }
    const server = createHttpServer(async (_req, res) => {
      await gate.held
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"held"}')
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    stopServer = () => new Promise<void>((resolve) => server.close(() => resolve()))
    const { port } = server.address() as AddressInfo
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] })
    vi.setSystemTime(now)
    const options: DashboardOptions = {
      urls: {
        control_url: `http://api.localhost:${port}`,
        sandbox_control_url: `http://sandbox.localhost:${port}`,
        gateway_port: port,
        rpc_url: `http://127.0.0.1:${port}`,
        chain_manager_url: `http://127.0.0.1:${port}`,
        facilitator_url: `http://127.0.0.1:${port}`,
        chain_id: 845320402,
        network: 'eip155:845320402',
        usdc,
      },
      newKeys: [{ name: 'demo automation', environment: 'development', key }],
      refreshMs,
    }
    const app = render(<App {...options} />)
    const frame = () => app.lastFrame() ?? ''
    await vi.waitFor(() => expect(app.stdin.listenerCount('readable')).toBeGreaterThan(0))
    const hold = () => {
      let release!: () => void
      gate.held = new Promise<void>((resolve) => (release = resolve))
      return () => {
        gate.held = undefined
        release()
      }
    }
    return { ...app, frame, hold }
  }

  test('the new-key banner shows for 10 minutes, then hides itself; `k` shows it again and hides it', async () => {
    // Polls once a minute: ten minutes of fake time stay quick.
    const { frame, stdin } = await dashboard(60_000)
    expect(frame()).toMatch(/^New API key \(seed\) {2}shown once: copy it now, svc keeps only a hash · k hides$/m)
    expect(frame()).toContain(key)
    await vi.advanceTimersByTimeAsync(9 * 60_000)
    expect(frame()).toContain(key)
    await vi.advanceTimersByTimeAsync(60_000)
    await vi.waitFor(() => expect(frame()).not.toContain(key))
    expect(frame()).not.toContain('New API key')
    stdin.write('k')
    await vi.waitFor(() => expect(frame()).toContain(key))
    // Shown by hand, it stays until hidden by hand.
    await vi.advanceTimersByTimeAsync(20 * 60_000)
    expect(frame()).toContain(key)
    stdin.write('k')
    await vi.waitFor(() => expect(frame()).not.toContain(key))
  })

  test('`r`: "refreshing…" until every panel has loaded again, then "refreshed HH:MM:SS" at that time', async () => {
    const { frame, stdin, hold } = await dashboard()
    await vi.waitFor(() => expect(frame()).toContain('503'))
    expect(linesOf(frame()).at(-1)).toBe(' r  refresh ·  tab  panels ·  ?  help ·  q  quit')
    await vi.advanceTimersByTimeAsync(65_000)
    const release = hold()
    stdin.write('r')
    await vi.waitFor(() => expect(linesOf(frame()).at(-1)).toBe(' r  refreshing… ·  tab  panels ·  ?  help ·  q  quit'))
    // However long the answers take.
    await vi.advanceTimersByTimeAsync(3_000)
    expect(frame()).toContain(' r  refreshing…')
    const at = Date.now()
    release()
    await vi.waitFor(() =>
      expect(linesOf(frame()).at(-1)).toBe(
        ` r  refreshed ${formatClock(new Date(at).toISOString())} ·  tab  panels ·  ?  help ·  q  quit`,
      ),
    )
  })
})
