import { render } from 'ink-testing-library'
import { describe, expect, test } from 'vitest'
import { ChainPanel } from '../../tui/components/ChainPanel.js'
import { formatOffset } from '../../tui/format.js'

describe('time travel on the dashboard', () => {
  test("the chain line shows svc's clock offset while `svc time advance` has moved it, nothing otherwise", () => {
    const props = { chainId: 845320402, network: 'eip155:845320402', rpcUrl: 'http://127.0.0.1:8545' }
    const moved = render(<ChainPanel {...props} chain={{ data: { blockNumber: 12n, clockOffsetSeconds: 7200 } }} />)
    expect(moved.lastFrame()).toBe(
      'chain 845320402 (eip155:845320402) · block #12 · time +2h · RPC http://127.0.0.1:8545',
    )
    const still = render(<ChainPanel {...props} chain={{ data: { blockNumber: 12n, clockOffsetSeconds: 0 } }} />)
    expect(still.lastFrame()).toBe('chain 845320402 (eip155:845320402) · block #12 · RPC http://127.0.0.1:8545')
  })

  test('offsets read in the unit that fits', () => {
    expect([45, 900, 930, 7200, 9000, 8 * 86_400, 86_400 + 6 * 3600].map(formatOffset)).toEqual([
      '+45s',
      '+15m',
      '+15m30s',
      '+2h',
      '+2h30m',
      '+8d',
      '+1d06h',
    ])
  })
})
