import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { DiscoveryResource } from '../../sdk/bazaar-catalog.js'
import { App } from '../../tui/App.js'
import { BazaarLine, catalogEntrySummary } from '../../tui/components/BazaarLine.js'
import {
  startGatewayStack,
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
} from '../server/gateway/helpers.js'
import type { GatewayStack } from '../server/gateway/helpers.js'
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

const item = (resource: string, method: string): DiscoveryResource => ({
  resource,
  type: 'http',
  x402Version: 2,
  accepts: [],
  lastUpdated: '2026-11-25T00:00:00.000Z',
  extensions: { bazaar: { info: { input: { type: 'http', method } } } },
})

test('each listing in short; no line while the catalog is empty', () => {
  expect(catalogEntrySummary(item('http://weather.dev.localhost:4020/weather/:city', 'GET'))).toBe(
    'GET weather.dev.localhost/weather/:city',
  )
  expect(linesOf(renderAt(80, <BazaarLine catalog={{ newest: [], total: 0 }} />).lastFrame())).toEqual([''])
  const [line] = linesOf(
    renderAt(
      100,
      <BazaarLine
        catalog={{ newest: [item('https://a.example/x', 'POST'), item('https://b.example/y', 'GET')], total: 7 }}
      />,
    ).lastFrame(),
  )
  expect(line).toBe('  bazaar catalog (7) POST a.example/x · GET b.example/y')
})

test('the dashboard shows a resource once a buyer has paid for it', async () => {
  const { services, t } = stack
  const { lastFrame } = render(<App urls={dashboardUrls(t.server, services)} refreshMs={100} />)
  const frame = () => lastFrame() ?? ''
  await expect.poll(frame, { timeout: 15_000 }).toMatch(/block #\d/)
  expect(frame()).not.toContain('bazaar catalog')

  const seller = await newSeller(t)
  const api = await createApi(t, seller, stack.upstream.url)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(services)],
  })
  const paid = await payingFetch(services, stack.buyer)(`${api.gateway}/weather/Lima`)
  expect(paid.status).toBe(200)
  await paid.arrayBuffer()
  const host = new URL(api.gateway).hostname
  await expect.poll(frame, { timeout: 15_000 }).toContain(`bazaar catalog (1) GET ${host}/weather/:city`)
})
