import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Fault } from '../../sdk/types.js'
import { App } from '../../tui/App.js'
import { FaultsLine, faultSummary } from '../../tui/components/FaultsLine.js'
import { startGatewayStack, type GatewayStack } from '../server/gateway/helpers.js'
import { linesOf, renderAt } from './dashboard-fixtures.js'
import { dashboardUrls } from './dashboard-urls.js'

let stack: GatewayStack

beforeAll(async () => {
  stack = await startGatewayStack()
})
afterAll(async () => {
  cleanup()
  await stack?.stop()
})

const fault = (overrides: Partial<Fault>): Fault => ({
  id: 'flt_1',
  kind: 'verify',
  reason: null,
  delay_ms: null,
  status: null,
  drop: false,
  api: null,
  times: null,
  remaining: null,
  hits: 0,
  created_at: '2026-01-01T12:00:00.000Z',
  ...overrides,
})

test('each fault in short; no line without faults', () => {
  expect(faultSummary(fault({ reason: 'invalid_exact_evm_signature', api: 'weather', times: 2, remaining: 1 }))).toBe(
    'verify invalid_exact_evm_signature (weather, 1 left)',
  )
  expect(faultSummary(fault({ kind: 'settle', delay_ms: 400, reason: 'invalid_exact_evm_transaction_failed' }))).toBe(
    'settle +400 ms invalid_exact_evm_transaction_failed',
  )
  expect(faultSummary(fault({ kind: 'upstream', status: 503 }))).toBe('upstream 503')
  expect(faultSummary(fault({ kind: 'upstream', drop: true }))).toBe('upstream drop')
  expect(linesOf(renderAt(80, <FaultsLine faults={[]} />).lastFrame())).toEqual([''])
  const [line] = linesOf(
    renderAt(
      80,
      <FaultsLine faults={[fault({ kind: 'upstream', delay_ms: 300 }), fault({ kind: 'upstream', drop: true })]} />,
    ).lastFrame(),
  )
  expect(line).toBe('  faults in force (2) upstream +300 ms · upstream drop')
})

test('the dashboard shows the faults in force as they are added and cleared', async () => {
  const { services, t } = stack
  const { lastFrame } = render(<App urls={dashboardUrls(t.server, services)} refreshMs={100} />)
  const frame = () => lastFrame() ?? ''
  await expect.poll(frame, { timeout: 15_000 }).toMatch(/block #\d/)
  expect(frame()).not.toContain('faults in force')
  await t.call('/dev/faults', { host: 'development', body: { kind: 'upstream', status: 503 } })
  await expect.poll(frame, { timeout: 15_000 }).toContain('faults in force (1) upstream 503')
  await t.call('/dev/faults', { host: 'development', method: 'DELETE' })
  await expect.poll(frame, { timeout: 15_000 }).not.toContain('faults in force')
})
