import { once } from 'node:events'
import { createServer, type AddressInfo } from 'node:net'
import { Box, Text } from 'ink'
import { cleanup, render } from 'ink-testing-library'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { App } from '../../tui/App.js'
import { ApisPanel } from '../../tui/components/ApisPanel.js'
import { ChainPanel } from '../../tui/components/ChainPanel.js'
import { FaucetLine } from '../../tui/components/FaucetLine.js'
import { HelpBar } from '../../tui/components/HelpBar.js'
import { OutboxPanel } from '../../tui/components/OutboxPanel.js'
import { SettlementsPanel } from '../../tui/components/SettlementsPanel.js'
import { WalletPanel } from '../../tui/components/WalletPanel.js'
import { formatTtl, formatUsdc, shortHex } from '../../tui/format.js'
import { useKeys } from '../../tui/hooks/use-keys.js'
import { useWindowSize } from '../../tui/hooks/use-window-size.js'
import { allocateRows } from '../../tui/layout.js'
import type { DashboardOptions } from '../../tui/model.js'
import {
  address,
  apiOf,
  endpoint,
  feedOf,
  linesOf,
  now,
  renderAt,
  settlement,
  txHash,
  usdc,
} from './dashboard-fixtures.js'

afterEach(() => cleanup())

const privateKey = '0xd223b7e0a9c5f4a6e1b2c3d4e5f60718293a4b5c6d7e8f9012345678abcd0d01'

describe('format helpers', () => {
  test('long hex is shortened to 0x1234…abcd; amounts are in whole units', () => {
    expect(shortHex('0x1234567890abcdef1234567890abcdef1234abcd')).toBe('0x1234…abcd')
    expect(shortHex('0x12')).toBe('0x12')
    expect(formatUsdc('10000')).toBe('0.01 USDC')
    expect(formatUsdc('0x3b9aca00')).toBe('1,000 USDC')
    expect(formatTtl(new Date(now + 245_000).toISOString(), now)).toBe('4m05s')
    expect(formatTtl(new Date(now + 7_500_000).toISOString(), now)).toBe('2h05m')
    expect(formatTtl(new Date(now - 1000).toISOString(), now)).toBe('expired')
  })

  test('list lines are shared: each list gets one line first, then the first lists get what they want', () => {
    expect(allocateRows(14, [3, 1, 1])).toEqual([3, 1, 1])
    expect(allocateRows(5, [10, 10, 10])).toEqual([3, 1, 1])
    expect(allocateRows(2, [10, 10, 10])).toEqual([1, 1, 0])
    expect(allocateRows(-3, [1, 1])).toEqual([0, 0])
  })
})

describe('ChainPanel', () => {
  test('shows the chain id, the block number and the RPC URL, or the error in one line', () => {
    const props = { chainId: 845320402, network: 'eip155:845320402', rpcUrl: 'http://127.0.0.1:8545' }
    const ok = render(<ChainPanel {...props} chain={{ data: { blockNumber: 1234n } }} />)
    expect(ok.lastFrame()).toBe('chain 845320402 (eip155:845320402) · block #1,234 · RPC http://127.0.0.1:8545')
    const failed = renderAt(
      80,
      <ChainPanel
        {...props}
        chain={{ error: 'cannot reach the chain RPC at http://127.0.0.1:8545: is svc up running?' }}
      />,
    )
    expect(linesOf(failed.lastFrame())).toHaveLength(1)
    expect(failed.lastFrame()).toBe('chain 845320402 ✖ cannot reach the chain RPC at http://127.0.0.1:8545: is svc u…')
  })
})

describe('WalletPanel', () => {
  const wallet = {
    address,
    private_key: privateKey,
    private_key_redacted: `${privateKey.slice(0, 6)}…${privateKey.slice(-4)}`,
  }
  const balances = { eth_wei: '0x8ac7230489e80000', usdc_base: '0x3b9aca00' }

  test('shows the address and the balances in ETH and USDC, never the private key', () => {
    // A whole GET /sandbox-wallet answer, private key included: the panel must not show it.
    const { lastFrame } = renderAt(
      100,
      <WalletPanel loggedIn wallet={{ data: { wallet, balances } }} faucet={{ status: 'idle' }} width={100} />,
    )
    expect(linesOf(lastFrame())).toEqual([
      `Sandbox wallet  ${address}  key 0xd223…0d01 (hidden)`,
      '  1,000 USDC  ·  10 ETH',
      '  faucet  press f to send ETH and USDC to this wallet',
    ])
    expect(lastFrame()).not.toContain(privateKey)
    expect(lastFrame()).not.toContain(privateKey.slice(6, -4))
  })

  test('fractional balances keep their decimals; ETH at most 4', () => {
    const odd = { eth_wei: '1234567890123456789', usdc_base: '1500001' }
    const { lastFrame } = render(
      <WalletPanel loggedIn wallet={{ data: { wallet, balances: odd } }} faucet={{ status: 'idle' }} width={100} />,
    )
    expect(lastFrame()).toContain('1.500001 USDC  ·  1.2345 ETH')
  })

  test('at 40 columns the address is shortened', () => {
    const { lastFrame } = renderAt(
      40,
      <WalletPanel loggedIn wallet={{ data: { wallet, balances } }} faucet={{ status: 'idle' }} width={40} />,
    )
    expect(linesOf(lastFrame())[0]).toBe('Sandbox wallet  0x0821…A6Ed')
  })

  test('without a session it says how to sign up or log in', () => {
    const { lastFrame } = renderAt(
      200,
      <WalletPanel loggedIn={false} wallet={{}} faucet={{ status: 'idle' }} width={200} />,
    )
    expect(lastFrame()).toBe(
      'Sandbox wallet  not logged in: `svc signup --sandbox` or `svc login --sandbox` (shown here at once)',
    )
  })

  test('an error is one line in the panel', () => {
    const error = 'cannot reach http://sandbox.localhost:4020 (ECONNREFUSED): is svc up running?'
    const { lastFrame } = renderAt(
      100,
      <WalletPanel loggedIn wallet={{ error }} faucet={{ status: 'idle' }} width={100} />,
    )
    expect(linesOf(lastFrame())).toEqual([
      'Sandbox wallet  unavailable',
      `  ✖ ${error}`,
      '  faucet  press f to send ETH and USDC to this wallet',
    ])
    // Too long for the width: cut, still one line.
    const narrow = renderAt(60, <WalletPanel loggedIn wallet={{ error }} faucet={{ status: 'idle' }} width={60} />)
    expect(linesOf(narrow.lastFrame())[1]).toBe('  ✖ cannot reach http://sandbox.localhost:4020 (ECONNREFUSE…')
  })
})

describe('FaucetLine', () => {
  test('shows progress, then what was sent, or why it failed', () => {
    const { lastFrame, rerender } = render(<FaucetLine faucet={{ status: 'funding', address }} />)
    expect(lastFrame()).toBe('  faucet  funding 0x0821…A6Ed…')
    rerender(
      <FaucetLine
        faucet={{
          status: 'funded',
          result: {
            funded: { eth_wei: '0x8ac7230489e80000', usdc_base: '0x3b9aca00' },
            transactions: { usdc: txHash },
          },
        }}
      />,
    )
    expect(lastFrame()).toBe('  faucet  ✔ sent 10 ETH and 1,000 USDC · tx 0xab12…ab12')
    rerender(<FaucetLine faucet={{ status: 'failed', error: 'email not verified (HTTP 403)' }} />)
    expect(lastFrame()).toBe('  faucet  ✖ email not verified (HTTP 403)')
  })
})

describe('ApisPanel', () => {
  const apis = [
    {
      api: apiOf('api_1', 'Weather', 'weather'),
      endpoints: [
        endpoint({ path_pattern: '/weather/{city}' }),
        endpoint({
          method: 'POST',
          path_pattern: '/forecast',
          accepts: [{ ...endpoint({}).accepts[0]!, amount: '1500000' }],
          ttl: 300,
          expires_at: new Date(now + 245_000).toISOString(),
          enabled: false,
        }),
      ],
    },
    { api: apiOf('api_2', 'Empty', 'empty'), endpoints: [] },
  ]

  test('lists each API with its gateway URL and its endpoints: method, path, price in USDC, ttl countdown, enabled', () => {
    const { lastFrame, rerender } = renderAt(
      100,
      <ApisPanel loggedIn apis={{ data: apis }} usdc={usdc} now={now} width={100} />,
    )
    expect(linesOf(lastFrame())).toEqual([
      'APIs & endpoints  2 APIs, 2 endpoints',
      '  Weather  http://weather.dev.localhost:4020',
      '    GET    /weather/{city}                                       0.01 USDC       no ttl      on',
      '    POST   /forecast                                             1.5 USDC        ttl 4m05s   off',
      '  Empty  http://empty.dev.localhost:4020',
      '    no endpoints yet',
    ])
    // A minute later the countdown has moved.
    rerender(
      <Box width={100}>
        <ApisPanel loggedIn apis={{ data: apis }} usdc={usdc} now={now + 60_000} width={100} />
      </Box>,
    )
    expect(lastFrame()).toContain('ttl 3m05s')
  })

  test('a price in another asset is in atomic units; a short list says how many lines are left out', () => {
    const other = [
      {
        api: apis[0]!.api,
        endpoints: [
          endpoint({ accepts: [{ ...endpoint({}).accepts[0]!, asset: '0x00000000000000000000000000000000000000aa' }] }),
          endpoint({}),
          endpoint({}),
        ],
      },
    ]
    const { lastFrame } = renderAt(
      100,
      <ApisPanel loggedIn apis={{ data: other }} usdc={usdc} now={now} width={100} rows={3} />,
    )
    const lines = linesOf(lastFrame())
    expect(lines).toHaveLength(4)
    expect(lines[2]).toContain('10000 units')
    expect(lines[3]).toBe('  … 2 more lines')
  })

  test('empty, not logged in and error states', () => {
    expect(render(<ApisPanel loggedIn apis={{ data: [] }} usdc={usdc} now={now} width={100} />).lastFrame()).toContain(
      'none yet',
    )
    expect(render(<ApisPanel loggedIn={false} apis={{}} usdc={usdc} now={now} width={100} />).lastFrame()).toContain(
      '`svc signup --sandbox`',
    )
    expect(
      linesOf(
        render(
          <ApisPanel loggedIn apis={{ error: 'insufficient scope (HTTP 403)' }} usdc={usdc} now={now} width={100} />,
        ).lastFrame(),
      ),
    ).toEqual(['APIs & endpoints', '  ✖ insufficient scope (HTTP 403)'])
  })
})

describe('SettlementsPanel', () => {
  const settlements = [
    settlement('stl_a', '2026-01-01T11:00:00.000Z', '/weather/Oslo'),
    settlement('stl_c', '2026-01-01T11:30:00.000Z', '/weather/Paris'),
    settlement('stl_b', '2026-01-01T11:15:00.000Z', '/weather/Rome'),
  ]

  const apis = [{ api: apiOf('api_1', 'Demo Weather', 'weather'), endpoints: [] }]

  test('newest first: time, API, method and path, amount in USDC, delivered, payer, transaction and upstream', () => {
    const { lastFrame } = renderAt(
      120,
      <SettlementsPanel loggedIn settlements={{ data: feedOf(settlements) }} usdc={usdc} apis={apis} width={120} />,
    )
    const lines = linesOf(lastFrame())
    expect(lines[0]).toBe('Settlements  newest first')
    expect(lines.slice(1).map((line) => /\/weather\/\w+/.exec(line)?.[0])).toEqual([
      '/weather/Paris',
      '/weather/Rome',
      '/weather/Oslo',
    ])
    expect(lines[1]).toMatch(
      /^ {2}\d\d:\d\d:\d\d {2}weather GET \/weather\/Paris +0\.025 USDC {2}delivered {2}from 0x1234…abcd {2}tx 0xab12…ab12 {2}via 127\.0\.0\.1:8080$/,
    )
    // Narrower, the upstream gives way first, then the transaction; the API's slug stays.
    const at = (width: number) =>
      linesOf(
        renderAt(
          width,
          <SettlementsPanel
            loggedIn
            settlements={{ data: feedOf(settlements) }}
            usdc={usdc}
            apis={apis}
            width={width}
          />,
        ).lastFrame(),
      )[1]!
    expect(at(100)).toMatch(
      /weather GET \/weather\/Paris +0\.025 USDC {2}delivered {2}from 0x1234…abcd {2}tx 0xab12…ab12$/,
    )
    expect(at(80)).toMatch(
      /^ {2}\d\d:\d\d:\d\d {2}weather GET \/weather\/Paris +0\.025 USDC {2}delivered {2}from 0x1234…abcd$/,
    )
    // An API since deleted: its id instead of the slug.
    expect(
      linesOf(
        renderAt(
          80,
          <SettlementsPanel loggedIn settlements={{ data: feedOf(settlements) }} usdc={usdc} apis={[]} width={80} />,
        ).lastFrame(),
      )[1],
    ).toContain('api_1 GET /weather/Paris')
  })

  test('a buyer charged without the answer is marked "no answer"; the lines stay aligned and fit', () => {
    const marked = [settlements[0]!, { ...settlements[1]!, delivered: false }, settlements[2]!]
    for (const width of [100, 80]) {
      const lines = linesOf(
        renderAt(
          width,
          <SettlementsPanel loggedIn settlements={{ data: feedOf(marked) }} usdc={usdc} width={width} />,
        ).lastFrame(),
      )
      expect(lines[1]).toMatch(/GET \/weather\/Paris +0\.025 USDC +no answer +from 0x1234…abcd/)
      // At 80 columns the transaction gives way, not the path.
      expect(lines[1]!.includes('tx 0x'), `${width} columns`).toBe(width === 100)
      expect(lines[2]).not.toContain('no answer')
      expect(lines[1]!.indexOf('from'), `${width} columns`).toBe(lines[2]!.indexOf('from'))
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width)
    }
  })

  test('empty and not logged in', () => {
    expect(
      render(<SettlementsPanel loggedIn settlements={{ data: feedOf([]) }} usdc={usdc} width={100} />).lastFrame(),
    ).toContain('none yet')
    expect(
      render(<SettlementsPanel loggedIn={false} settlements={{}} usdc={usdc} width={100} />).lastFrame(),
    ).toContain('`svc signup --sandbox`')
  })
})

describe('OutboxPanel', () => {
  test('shows each mail with the command that verifies it', () => {
    const messages = [
      {
        id: 2,
        to: 'alice@example.test',
        subject: 'Verify your email for svc',
        body: '…',
        token: 'tok_abc',
        used: false,
        created_at: '2026-01-01T11:00:00.000Z',
      },
    ]
    const { lastFrame } = renderAt(100, <OutboxPanel outbox={{ data: messages }} width={100} />)
    expect(linesOf(lastFrame())[1]).toMatch(/^ {2}\d\d:\d\d:\d\d {2}alice@example\.test +svc verify-email tok_abc$/)
    expect(render(<OutboxPanel outbox={{ data: [] }} width={100} />).lastFrame()).toContain('no mails yet')
  })
})

describe('at 80 columns', () => {
  test('every panel fits: long paths and addresses are cut, hex is shortened', () => {
    const long = '/a/very/long/path/that/does/not/fit/in/eighty/columns/{id}/and/more/segments'
    const apis = [
      {
        api: apiOf('api_1', 'An API with a rather long display name that goes on', 'long-slug'),
        endpoints: [endpoint({ path_pattern: long, ttl: 60, expires_at: new Date(now + 59_000).toISOString() })],
      },
    ]
    const settlements = [settlement('stl_1', '2026-01-01T11:00:00.000Z', long)]
    const outbox = [
      {
        id: 1,
        to: 'somebody.with.a.very.long.address@subdomain.example.test',
        subject: 'Verify',
        body: '',
        token: 'x'.repeat(32),
        used: false,
        created_at: '2026-01-01T11:00:00.000Z',
      },
    ]
    const wallet = {
      data: {
        wallet: { address, private_key_redacted: '0xd223…0d01' },
        balances: { eth_wei: '0x0', usdc_base: '0x0' },
      },
    }
    const { lastFrame } = renderAt(
      80,
      <Box flexDirection="column">
        <WalletPanel
          loggedIn
          wallet={wallet}
          faucet={{
            status: 'funded',
            result: {
              funded: { eth_wei: '0x8ac7230489e80000', usdc_base: '0x3b9aca00' },
              transactions: { usdc: txHash },
            },
          }}
          width={80}
        />
        <ApisPanel loggedIn apis={{ data: apis }} usdc={usdc} now={now} width={80} />
        <SettlementsPanel loggedIn settlements={{ data: feedOf(settlements) }} usdc={usdc} apis={apis} width={80} />
        <OutboxPanel outbox={{ data: outbox }} width={80} />
        <HelpBar faucet />
      </Box>,
    )
    const lines = linesOf(lastFrame())
    expect(lines).toHaveLength(3 + 3 + 2 + 2 + 1)
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(80)
    // The name is cut, the gateway URL never.
    expect(lines[4]).toBe('  An API with a rather long display name t…  http://long-slug.dev.localhost:4020')
    expect(lines[5]).toMatch(/^ {4}GET {4}\/a\/very\/long\/path\/that\/does\/not… {2}0\.01 USDC {7}ttl 59s {5}on$/)
    expect(lines[7]).toMatch(
      /^ {2}\d\d:\d\d:\d\d {2}long-slug GET \/a\/very\/long… {2}0\.025 USDC {2}delivered {2}from 0x1234…abcd$/,
    )
    expect(lines[9]).toContain(`svc verify-email ${'x'.repeat(32)}`)
  })
})

describe('HelpBar', () => {
  test('lists the keys; the faucet key only with a session', () => {
    expect(render(<HelpBar faucet />).lastFrame()).toBe(
      ' f  fund wallet ·  r  refresh ·  tab  panels ·  ?  help ·  q  quit',
    )
    expect(render(<HelpBar faucet={false} />).lastFrame()).toBe(' r  refresh ·  tab  panels ·  ?  help ·  q  quit')
  })
})

describe('hooks', () => {
  test('useKeys: q and Ctrl-C quit, f funds, r refreshes', async () => {
    const actions = { onQuit: vi.fn(), onFaucet: vi.fn(), onRefresh: vi.fn() }
    function Probe() {
      useKeys(actions)
      return <Text>keys</Text>
    }
    const { stdin } = render(<Probe />)
    // Ink starts reading stdin in an effect: wait for its listener.
    await expect.poll(() => stdin.listenerCount('readable')).toBeGreaterThan(0)
    stdin.write('f')
    stdin.write('r')
    stdin.write('q')
    stdin.write('\u0003')
    await expect.poll(() => actions.onQuit.mock.calls.length).toBe(2)
    expect(actions.onFaucet).toHaveBeenCalledTimes(1)
    expect(actions.onRefresh).toHaveBeenCalledTimes(1)
  })

  test('useWindowSize follows the terminal when it is resized', async () => {
    function Probe() {
      const { columns, rows } = useWindowSize()
      return <Text>{`${columns}x${rows}`}</Text>
    }
    const { lastFrame, stdout } = render(<Probe />)
    expect(lastFrame()).toBe('100x24')
    Object.defineProperty(stdout, 'columns', { value: 80, configurable: true })
    Object.defineProperty(stdout, 'rows', { value: 30, configurable: true })
    stdout.emit('resize')
    await expect.poll(lastFrame).toBe('80x30')
  })
})

/** A port nothing listens on (any more). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('App', () => {
  test('without a running sandbox every panel says so in one line, and nothing crashes', async () => {
    const port = await closedPort()
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
      session: { jwt: 'not-a-real-jwt' },
      refreshMs: 50,
    }
    const { lastFrame } = render(<App {...options} />)
    await expect.poll(() => lastFrame()?.match(/✖/g)?.length ?? 0).toBeGreaterThanOrEqual(5)
    const lines = linesOf(lastFrame())
    expect(lines[0]).toBe(`svc sandbox · http://sandbox.localhost:${port} · gateway port ${port}`)
    expect(lines.find((line) => line.startsWith('chain'))).toBe(
      `chain 845320402 ✖ cannot reach the chain RPC at http://127.0.0.1:${port}: is svc up running?`,
    )
    const unreachable = `  ✖ cannot reach http://sandbox.localhost:${port} (ECONNREFUSED): is svc up running?`
    // The wallet, the APIs, the settlements and the outbox.
    expect(lines.filter((line) => line === unreachable)).toHaveLength(4)
    expect(lines.at(-1)).toBe(' f  fund wallet ·  r  refresh ·  tab  panels ·  ?  help ·  q  quit')
    // The whole dashboard fits the 24 lines assumed for a stream without a size.
    expect(lines.length).toBeLessThan(24)
  })
})
