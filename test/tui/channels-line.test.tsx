import { render } from 'ink-testing-library'
import { expect, test } from 'vitest'
import { ChannelsLine, channelsLineLines } from '../../tui/components/ChannelsLine.js'
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

test("the channels line: a channel's life in one line, drawn only while there is a channel", () => {
  expect(channelsLineLines([])).toBe(0)
  expect(render(<ChannelsLine channels={[]} />).lastFrame()).toBe('')
  const channels = [channel({}), channel({ state: 'closed', spent: '3000', vouchers: 3, refunded: '7000' })]
  expect(channelsLineLines(channels)).toBe(1)
  // Cut to the terminal's width (ink-testing-library's is 100 columns).
  expect(render(<ChannelsLine channels={channels} />).lastFrame()).toBe(
    '  channels (1 open of 2) 8 requests · deposited 0.02 · spent 0.008 · claimed 0.01 · settled 0.01 · …',
  )
})
