import { render } from 'ink-testing-library'
import { expect, test } from 'vitest'
import { ChannelsLine, channelsLineLines, latestChannel } from '../../tui/components/ChannelsLine.js'
import type { Channel } from '../../sdk/types.js'

const channel = (overrides: Partial<Channel>): Channel => ({
  channel_id: `0x${'1'.repeat(64)}`,
  api_id: 'api_1',
  environment: 'development',
  network: 'eip155:845320402',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  payer: `0x${'2'.repeat(40)}`,
  pay_to: `0x${'3'.repeat(40)}`,
  withdraw_delay: 900,
  deposited: '10000',
  balance: '10000',
  spent: '5000',
  claimed: '5000',
  settled: '5000',
  refunded: '0',
  withdrawn: '0',
  vouchers: 5,
  state: 'open',
  chain_epoch: 'e1',
  old_chain: false,
  created_at: '2026-11-26T00:00:00.000Z',
  updated_at: '2026-11-26T00:00:00.000Z',
  ...overrides,
})

test('the channels lines: the states and totals, then the channel that moved last, drawn only while there is one', () => {
  expect(channelsLineLines([])).toBe(0)
  expect(render(<ChannelsLine channels={[]} />).lastFrame()).toBe('')
  const channels = [
    channel({}),
    channel({
      channel_id: `0x${'4'.repeat(64)}`,
      state: 'closed',
      spent: '3000',
      claimed: '3000',
      settled: '0',
      vouchers: 3,
      refunded: '7000',
      balance: '3000',
      updated_at: '2026-11-26T00:01:00.000Z',
    }),
  ]
  expect(channelsLineLines(channels)).toBe(3)
  expect(latestChannel(channels)?.state).toBe('closed')
  // Each line cut to the terminal's width (ink-testing-library's is 100 columns).
  expect(render(<ChannelsLine channels={channels} />).lastFrame()).toBe(
    [
      '  channels (1 open, 1 closed) 8 requests · deposited 0.02 · spent 0.008 · settled 0.005 USDC',
      '    latest 0x4444…4444 closed · 3 requests · payer 0x2222…2222',
      '    deposited 0.01  spent 0.003  claimed 0.003  settled 0  refunded 0.007  withdrawn 0',
    ].join('\n'),
  )
  // A classic 80-column terminal: what is 0 of refunded and withdrawn gives way.
  expect(
    render(<ChannelsLine channels={channels} width={80} />)
      .lastFrame()
      ?.split('\n')[2],
  ).toBe('    deposited 0.01  spent 0.003  claimed 0.003  settled 0  refunded 0.007')
  const withdrawing = channel({ state: 'withdrawing', updated_at: '2026-11-26T00:02:00.000Z' })
  expect(render(<ChannelsLine channels={[...channels, withdrawing]} />).lastFrame()).toContain(
    '  channels (1 open, 1 withdrawing, 1 closed) 13 requests',
  )
})
