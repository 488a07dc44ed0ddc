/**
 * A payment channel's life as the dashboard shows it (issue 24): a real svc (chain, facilitator, gateway), buyers
 * paying with @x402/evm's batch-settlement client, and the dashboard (App) polling the seller's channels. Its
 * channels lines follow each step: the deposit and first request, more requests, the manager's claim and settle,
 * the refund (closed); then a second buyer's channel, claimed and settled, its own initiateWithdraw (withdrawing),
 * `svc time advance` past the delay and finalizeWithdraw (closed, withdrawn).
 */
import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { App } from '../../tui/App.js'
import { batchAccept, batchBuyer, channelConfigOf, depositOf, withdrawCall } from '../server/gateway/batch-kit.js'
import { addEndpoint, createApi, newSeller, startGatewayStack, type GatewayStack } from '../server/gateway/helpers.js'
import { dashboardUrls } from './dashboard-urls.js'

let stack: GatewayStack

beforeAll(async () => {
  stack = await startGatewayStack()
})
afterAll(async () => {
  cleanup()
  await stack?.stop()
})

/** The dashboard's channels lines in a frame ('' when it draws none). */
const channelLines = (frame: string | undefined) => {
  const lines = (frame ?? '').split('\n')
  const first = lines.findIndex((line) => line.startsWith('  channels ('))
  return first < 0 ? '' : lines.slice(first, first + 3).join('\n')
}

test("the dashboard's channels lines follow a channel's life: deposit, requests, claim, settle, refund, withdraw", async () => {
  const { services, t, upstream } = stack
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  // Claims every 2 s and settles every 4 s: the dashboard (polling every 200 ms) sees each step on its own.
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [batchAccept(services, 1_000n, { claimIntervalSeconds: 2, settleIntervalSeconds: 4 })],
  })
  const { lastFrame, frames } = render(
    <App urls={dashboardUrls(t.server, services)} session={{ jwt: seller.jwt }} refreshMs={200} />,
  )
  const shows = async (...parts: string[]) =>
    vi.waitFor(
      () => {
        const lines = channelLines(lastFrame())
        for (const part of parts) expect(lines).toContain(part)
      },
      { timeout: 15_000, interval: 50 },
    )
  const url = `${api.gateway}/weather/oslo`

  const first = batchBuyer(services)
  await services.manager.fund(first.buyer.address)
  expect((await first.pay(url)).status).toBe(200)
  await shows('channels (1 open) 1 requests', ' open · 1 requests', 'deposited 0.01  spent 0.001')
  for (let i = 0; i < 4; i++) expect((await first.pay(url)).status).toBe(200)
  await shows(' open · 5 requests', 'spent 0.005')
  await shows('claimed 0.005')
  await shows('claimed 0.005  settled 0.005')
  expect((await first.scheme.refund(url, { fetch: localFetch })).success).toBe(true)
  await shows('channels (1 closed) 5 requests', ' closed · 5 requests', 'settled 0.005  refunded 0.005  withdrawn 0')

  const second = batchBuyer(services)
  await services.manager.fund(second.buyer.address)
  const opened = await second.pay(url)
  expect(opened.status).toBe(200)
  expect((await second.pay(url)).status).toBe(200)
  await shows('channels (1 open, 1 closed) 7 requests', ' open · 2 requests', 'claimed 0.002  settled 0.002')
  const config = await channelConfigOf(services, depositOf(opened)!)
  await withdrawCall(services, second.buyer, 'initiateWithdraw', [config, 8_000n])
  await shows('(1 withdrawing, 1 closed)', ' withdrawing · 2 requests')
  expect((await t.call('/dev/time/advance', { host: 'development', body: { seconds: 900 } })).status).toBe(200)
  await withdrawCall(services, second.buyer, 'finalizeWithdraw', [config])
  await shows('channels (2 closed)', ' closed · 2 requests', 'refunded 0  withdrawn 0.008')

  // The steps in the order the dashboard drew them (each distinct set of lines once).
  const drawn = frames.map(channelLines).filter((lines, i, all) => lines !== '' && lines !== all[i - 1])
  if (process.env.SVC_PRINT_CHANNEL_LIFE) console.log(drawn.join('\n\n'))
  const at = (part: string) => drawn.findIndex((lines) => lines.includes(part))
  const order = [
    'spent 0.001',
    'spent 0.005',
    'settled 0.005',
    'refunded 0.005',
    ' withdrawing ·',
    'withdrawn 0.008',
  ].map(at)
  expect(order.every((index) => index >= 0)).toBe(true)
  expect(order).toEqual([...order].sort((a, b) => a - b))
})
