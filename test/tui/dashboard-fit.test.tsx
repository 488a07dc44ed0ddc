/**
 * The dashboard in a classic 80×24 terminal (issue 9, item 10): the seed's new key shown once, the gateway, chain
 * manager and facilitator URLs, "… n more" counting what the page left out, and hints that fit instead of being cut.
 */
import { Box } from 'ink'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, test } from 'vitest'
import { ApisPanel } from '../../tui/components/ApisPanel.js'
import { Header } from '../../tui/components/Header.js'
import { HelpBar, helpBarLines } from '../../tui/components/HelpBar.js'
import { NewKeysPanel } from '../../tui/components/NewKeysPanel.js'
import { OutboxPanel } from '../../tui/components/OutboxPanel.js'
import { PayToLine } from '../../tui/components/PayToLine.js'
import { ServicesLine } from '../../tui/components/ServicesLine.js'
import { SettlementsPanel } from '../../tui/components/SettlementsPanel.js'
import { WalletPanel } from '../../tui/components/WalletPanel.js'
import { formatClock } from '../../tui/format.js'
import { visibleItems } from '../../tui/layout.js'
import type { SessionRevenue } from '../../tui/model.js'
import { address, apiOf, endpoint, linesOf, now, renderAt, settlement, usdc } from './dashboard-fixtures.js'

afterEach(() => cleanup())

/** Every line fits 80 columns and none was cut (Ink's truncation ends a line with "…"). */
function expectWhole(lines: string[]) {
  for (const line of lines) {
    expect(line.length, line).toBeLessThanOrEqual(80)
    expect(line, 'a line cut at 80 columns').not.toMatch(/…$/)
  }
}

describe('the seed’s new API key', () => {
  const key = `svc_sandbox_${'Ab3_'.repeat(8)}`

  test('is shown whole at 80 columns, with its name, under a title that says it is shown once', () => {
    const { lastFrame } = renderAt(
      80,
      <NewKeysPanel keys={[{ name: 'demo automation', environment: 'development', key }]} width={80} />,
    )
    const lines = linesOf(lastFrame())
    expect(lines).toEqual([
      'New API key (seed)  shown once: copy it now, svc keeps only a hash',
      `  ${key}  demo automation (development)`,
    ])
    expectWhole(lines)
  })

  test('a long name is cut, never the key; no keys, no panel', () => {
    const { lastFrame } = renderAt(
      60,
      <NewKeysPanel
        keys={[{ name: 'a key with a name far too long for the line', environment: 'development', key }]}
        width={60}
      />,
    )
    expect(linesOf(lastFrame())).toEqual(['New API key (seed)  shown once: copy it now', `  ${key}  a key with …`])
    expect(render(<NewKeysPanel keys={[]} width={80} />).lastFrame()).toBe('')
  })
})

describe('URLs', () => {
  test('the chain manager and the facilitator, in one line that fits 80 columns with five-digit ports', () => {
    const { lastFrame } = renderAt(
      80,
      <ServicesLine chainManagerUrl="http://127.0.0.1:46745" facilitatorUrl="http://127.0.0.1:35209" />,
    )
    expect(lastFrame()).toBe('  chain manager http://127.0.0.1:46745 · facilitator http://127.0.0.1:35209')
  })

  test('each API with its gateway URL, the endpoints below it', () => {
    const apis = [{ api: apiOf('api_1', 'Demo Weather', 'weather'), endpoints: [endpoint({})] }]
    const { lastFrame } = renderAt(80, <ApisPanel loggedIn apis={{ data: apis }} usdc={usdc} now={now} width={80} />)
    const lines = linesOf(lastFrame())
    expect(lines[1]).toBe('  Demo Weather  http://weather.dev.localhost:4020')
    expectWhole(lines)
  })
})

describe('"… n more settlements"', () => {
  test('counts the items the page left out: 10 loaded of 16, 9 lines: 8 shown, 8 more', () => {
    expect(visibleItems([...Array(10).keys()], 9, 16)).toEqual({ shown: [0, 1, 2, 3, 4, 5, 6, 7], hidden: 8 })
    // Room for the whole page but not the whole list: the free line says what was not loaded.
    expect(visibleItems([1, 2, 3], 10, 5)).toEqual({ shown: [1, 2, 3], hidden: 2 })
    expect(visibleItems([1, 2, 3], 10)).toEqual({ shown: [1, 2, 3], hidden: 0 })
  })

  test('the panel counts all the current settlements, not the page; those of an earlier chain are left out and counted', () => {
    const at = (minute: number) => `2026-01-01T11:${String(minute).padStart(2, '0')}:00.000Z`
    const page = [
      ...Array.from({ length: 10 }, (_, i) => settlement(`stl_${i}`, at(50 - i), `/w/${i}`)),
      ...[1, 2].map((i) => ({
        ...settlement(`stl_old${i}`, at(10 - i), '/old'),
        chain_epoch: 'fedcba9876543210',
        old_chain: true,
      })),
    ]
    const feed = { newest: page, current: 16, old: 2 }
    const { lastFrame } = renderAt(
      80,
      <SettlementsPanel loggedIn settlements={{ data: feed }} usdc={usdc} width={80} rows={9} />,
    )
    const lines = linesOf(lastFrame())
    expect(lines[0]).toBe('Settlements  newest first (2 from an earlier chain not shown)')
    expect(lines).toHaveLength(10)
    expect(lines.slice(1, 9).map((line) => /\/w\/\d+/.exec(line)?.[0])).toEqual(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => `/w/${i}`),
    )
    expect(lines[9]).toBe('  … 8 more settlements')
    expect(lastFrame()).not.toContain('/old')
  })
})

describe('hints fit 80 columns', () => {
  test('not logged in: each panel says how to log in, shortened to fit rather than cut', () => {
    const { lastFrame } = renderAt(
      80,
      <Box flexDirection="column">
        <WalletPanel loggedIn={false} wallet={{}} faucet={{ status: 'idle' }} width={80} />
        <ApisPanel loggedIn={false} apis={{}} usdc={usdc} now={now} width={80} />
        <SettlementsPanel loggedIn={false} settlements={{}} usdc={usdc} width={80} />
      </Box>,
    )
    const lines = linesOf(lastFrame())
    expect(lines).toEqual([
      'Sandbox wallet  not logged in: `svc signup --sandbox` or `svc login --sandbox`',
      'APIs & endpoints  not logged in: `svc signup --sandbox` or `svc login --sandbox`',
      'Settlements  not logged in: `svc signup --sandbox` or `svc login --sandbox`',
    ])
    expectWhole(lines)
    // Narrower still: the short form.
    expect(renderAt(56, <ApisPanel loggedIn={false} apis={{}} usdc={usdc} now={now} width={56} />).lastFrame()).toBe(
      'APIs & endpoints  not logged in: `svc login --sandbox`',
    )
  })

  test('empty lists and the header', () => {
    const settlements = { newest: [], current: 0, old: 3 }
    const { lastFrame } = renderAt(
      80,
      <Box flexDirection="column">
        <Header sandboxControlUrl="http://sandbox.localhost:46201" gatewayPort={46201} loggedIn={false} width={80} />
        <ApisPanel loggedIn apis={{ data: [] }} usdc={usdc} now={now} width={80} />
        <SettlementsPanel loggedIn settlements={{ data: settlements }} usdc={usdc} width={80} />
      </Box>,
    )
    const lines = linesOf(lastFrame())
    expect(lines).toEqual([
      'svc sandbox · http://sandbox.localhost:46201 · gateway port 46201',
      'APIs & endpoints  none yet: `svc apis create --sandbox …`',
      'Settlements  none yet (3 from an earlier chain not shown)',
    ])
    expectWhole(lines)
    expect(
      render(
        <Header sandboxControlUrl="http://sandbox.localhost:4020" gatewayPort={4020} loggedIn={false} width={80} />,
      ).lastFrame(),
    ).toBe('svc sandbox · http://sandbox.localhost:4020 · gateway port 4020 · not logged in')
  })

  test('the outbox keeps the whole `svc verify-email` command (a 48-digit token), the address and time give way', () => {
    const token = 'e50882abc1744061f2587db3d145f5b0e50882abc1744061'
    const messages = [
      {
        id: 1,
        to: 'demo@svc.test',
        subject: 'Verify your email for svc',
        body: '…',
        token,
        used: false,
        created_at: '2026-01-01T11:00:00.000Z',
      },
    ]
    const { lastFrame } = renderAt(80, <OutboxPanel outbox={{ data: messages }} width={80} />)
    expect(linesOf(lastFrame())[1]).toBe(`  demo@svc.t…  svc verify-email ${token}`)
    const wide = renderAt(120, <OutboxPanel outbox={{ data: messages }} width={120} />)
    expect(linesOf(wide.lastFrame())[1]).toMatch(
      new RegExp(`^ {2}\\d\\d:\\d\\d:\\d\\d {2}demo@svc\\.test +svc verify-email ${token}$`),
    )
  })

  test('the help bar fits 80 columns; in a narrower terminal it wraps between keys instead of cutting one', () => {
    const wide = linesOf(renderAt(80, <HelpBar faucet width={80} />).lastFrame())
    expect(wide).toEqual([' f  fund wallet ·  r  refresh ·  tab  panels ·  ?  help ·  q  quit'])
    expect(helpBarLines({ faucet: true, width: 80 })).toBe(1)
    // "refreshed HH:MM:SS" still fits.
    const refreshed = { state: 'refreshed', at: now } as const
    expect(helpBarLines({ faucet: true, width: 80, refresh: refreshed })).toBe(1)
    const narrow = linesOf(renderAt(29, <HelpBar faucet width={29} />).lastFrame())
    expect(narrow).toEqual([' f  fund wallet ·  r  refresh', ' tab  panels ·  ?  help', ' q  quit'])
    expect(helpBarLines({ faucet: true, width: 29 })).toBe(3)
    expect(linesOf(renderAt(15, <HelpBar faucet width={15} />).lastFrame())).toEqual([
      ' f  fund wallet',
      ' r  refresh',
      ' tab  panels',
      ' ?  help',
      ' q  quit',
    ])
  })
})

describe('the pay-to line', () => {
  const revenue: SessionRevenue = { since: '2026-01-01T11:00:00.000Z', count: 3, amounts: { [usdc]: '45000' } }
  const one = { data: [{ address, usdc_base: '0x2540be400' }] }
  const at = (width: number, payTo: Parameters<typeof PayToLine>[0]['payTo'], session = revenue) =>
    linesOf(renderAt(width, <PayToLine payTo={payTo} revenue={session} usdc={usdc} width={width} />).lastFrame())

  test('the fullest form that fits: the whole address, then shortened, then without the count, then the time', () => {
    expect(at(120, one)).toEqual([
      `  pay-to ${address}  10,000 USDC  ·  revenue 0.045 USDC since ${formatClock(revenue.since)} (3 paid)`,
    ])
    expect(at(80, one)).toEqual([
      `  pay-to 0x0821…A6Ed  10,000 USDC  ·  revenue 0.045 USDC since ${formatClock(revenue.since)} (3 paid)`,
    ])
    expect(at(72, one)).toEqual([
      `  pay-to 0x0821…A6Ed  10,000 USDC  ·  revenue 0.045 USDC since ${formatClock(revenue.since)}`,
    ])
    expect(at(56, one)).toEqual(['  pay-to 0x0821…A6Ed  10,000 USDC  ·  revenue 0.045 USDC'])
  })

  test('several pay-to addresses are counted and summed; no API yet, loading and a failure say so', () => {
    const two = { data: [...one.data, { address: usdc, usdc_base: '0x0' }] }
    expect(at(80, two)[0]).toMatch(/^ {2}pay-to 2 addresses {2}10,000 USDC {2}· {2}revenue 0\.045 USDC since/)
    expect(at(80, { data: [] })[0]).toMatch(/^ {2}pay-to no APIs yet {2}· {2}revenue 0\.045 USDC/)
    expect(at(80, {})[0]).toMatch(/^ {2}pay-to loading… {2}· {2}revenue 0\.045 USDC/)
    expect(at(80, { error: 'unauthorized (HTTP 401)' })[0]).toMatch(
      /^ {2}pay-to ✖ unauthorized \(HTTP 401\) {2}· {2}revenue/,
    )
    expect(at(80, one, { ...revenue, count: 1, amounts: {} })[0]).toMatch(/revenue 0 USDC since \S+ \(1 paid\)$/)
  })
})
