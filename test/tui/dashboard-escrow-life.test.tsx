/**
 * An escrow payment's life as the dashboard shows it (issue 39 item 4): a real svc (startSandbox: chain, facilitator,
 * gateway), its buyer paying a deferred auth-capture route through the gateway with the official client, the seller
 * capturing part, voiding the rest and refunding part through the SDK; then a second hold reclaimed by the buyer after
 * `advanceTime` past its capture deadline. The dashboard (App, polling every 200 ms) draws each step in its escrow lines
 * and in the payment's settlement row.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cleanup, render } from 'ink-testing-library'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { createSvcClient } from '../../sdk/client.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { App } from '../../tui/App.js'
import type { DashboardOptions } from '../../tui/model.js'

let sandbox: TestSandbox
let upstream: Server

beforeAll(async () => {
  upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"booked":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  sandbox = await startSandbox()
})
afterAll(async () => {
  cleanup()
  await sandbox?.stop()
  upstream?.close()
})

/** What `svc up` hands the dashboard, for the test's sandbox. */
const urlsOf = (s: TestSandbox): DashboardOptions['urls'] => ({
  control_url: s.controlUrl,
  sandbox_control_url: s.sandboxControlUrl,
  gateway_port: s.port,
  rpc_url: s.rpcUrl,
  chain_manager_url: s.chainManagerUrl,
  facilitator_url: s.facilitatorUrl,
  chain_id: s.chainId,
  network: s.network,
  usdc: s.usdc.address,
})

/** The dashboard's escrow lines in a frame ('' when it draws none). */
const escrowLines = (frame: string | undefined) => {
  const lines = (frame ?? '').split('\n')
  const first = lines.findIndex((line) => line.startsWith('  escrow ('))
  return first < 0 ? '' : lines.slice(first, first + 3).join('\n')
}
/** The settlement rows of `path` in a frame. */
const rowsOf = (frame: string | undefined, path: string) =>
  (frame ?? '').split('\n').filter((line) => line.includes(` GET ${path} `) && /^ {2}\d\d:\d\d:\d\d/.test(line))

test("the dashboard follows an escrow payment's life: held, partly captured, the rest voided, part refunded; a hold reclaimed", async () => {
  const { client } = sandbox.seller
  // The seller's Sandbox wallet (a session's) receives what is captured.
  const session = createSvcClient({
    baseUrl: sandbox.sandboxControlUrl,
    jwt: sandbox.seller.jwt,
    environment: 'development',
  })
  const wallet = await session.sandbox.wallet()
  const api = await client.apis.create({
    name: 'Bookings',
    slug: 'bookings',
    upstream_base_url: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    pay_to_mode: 'user_wallet',
    pay_to_address: wallet.address,
  })
  const accept = {
    scheme: 'auth-capture' as const,
    network: sandbox.network,
    asset: sandbox.usdc.address,
    amount: '10000',
    extra: { captureMode: 'deferred' as const },
  }
  for (const path of ['/book', '/hold'])
    await client.endpoints.create(api.id, { method: 'GET', path_pattern: path, accepts: [accept] })

  const { lastFrame, frames } = render(
    <App urls={urlsOf(sandbox)} session={{ jwt: sandbox.seller.jwt }} refreshMs={200} />,
  )
  const shows = async (lines: (string | RegExp)[], row: { path: string; status: RegExp }) =>
    vi.waitFor(
      () => {
        const frame = lastFrame()
        const escrow = escrowLines(frame)
        for (const line of lines)
          if (typeof line === 'string') expect(escrow).toContain(line)
          else expect(escrow).toMatch(line)
        expect(rowsOf(frame, row.path).some((one) => row.status.test(one))).toBe(true)
      },
      { timeout: 20_000, interval: 50 },
    )
  await vi.waitFor(() => expect(lastFrame()).toMatch(/Settlements {2}none yet/), { timeout: 20_000 })
  expect(escrowLines(lastFrame())).toBe('')

  // A day by default, on svc's 60 s grid: between 1d00h and 23h59m left.
  const held = /^ {2}escrow \(1 held\) · next capture deadline in (1d00h|23h5\dm) \(svc's clock\)$/m
  // The buyer pays: the escrow holds 0.01 until the capture deadline (a day by default), svc's clock counting down.
  const paid = await sandbox.buyer.fetch(`${sandbox.gatewayUrl('bookings')}/book`)
  expect(paid.status).toBe(200)
  await shows(
    [
      held,
      '    held 0.01  captured 0  voided 0  refunded 0  reclaimed 0 USDC',
      '    latest GET /book held 0.01 USDC · deferred',
    ],
    { path: '/book', status: / 0 USDC +held 0\.01(?!\d)/ },
  )
  const [payment] = await client.payments.list({})
  expect(payment).toMatchObject({ path: '/book', state: 'authorized', capturable: '10000' })

  // The seller captures part: 0.006 is the seller's, 0.004 still held.
  await client.payments.capture(payment!.id, { amount: '6000' })
  await shows(
    [
      held,
      '    held 0.004  captured 0.006  voided 0  refunded 0  reclaimed 0 USDC',
      '    latest GET /book held 0.01 → captured 0.006 USDC (0.004 still held) · deferred',
    ],
    { path: '/book', status: / 0\.006 USDC {2}captured 0\.006, held 0\.004(?!\d)/ },
  )

  // Voids the rest: nothing held.
  await client.payments.void(payment!.id)
  await shows(
    [
      '  escrow (1 captured) · nothing held',
      '    held 0  captured 0.006  voided 0.004  refunded 0  reclaimed 0 USDC',
      '    latest GET /book held 0.01 → captured 0.006 → voided 0.004 USDC · deferred',
    ],
    { path: '/book', status: / 0\.006 USDC {2}captured 0\.006 of 0\.01(?!\d)/ },
  )

  // Refunds part of what it captured: the settlement's amount is what the seller keeps.
  await client.payments.refund(payment!.id, { amount: '2000' })
  await shows(
    [
      '  escrow (1 captured) · nothing held',
      '    held 0  captured 0.006  voided 0.004  refunded 0.002  reclaimed 0 USDC',
      '    latest GET /book held 0.01 → captured 0.006 → voided 0.004 → refunded 0.002 USDC · deferred',
    ],
    { path: '/book', status: / 0\.004 USDC {2}refunded 0\.002 of 0\.006(?!\d)/ },
  )

  // A second hold, left until svc's clock passes its capture deadline: the buyer's to reclaim, then reclaimed.
  expect((await sandbox.buyer.fetch(`${sandbox.gatewayUrl('bookings')}/hold`)).status).toBe(200)
  await shows(
    [/escrow \(1 held, 1 captured\) · next capture deadline in (1d00h|23h5\dm)/, '    latest GET /hold held 0.01 USDC'],
    {
      path: '/hold',
      status: / 0 USDC +held 0\.01(?!\d)/,
    },
  )
  await sandbox.advanceTime(86_400 + 120)
  await shows(["  escrow (1 held, 1 captured) · 1 past its capture deadline (the buyer's to reclaim)"], {
    path: '/hold',
    status: /held 0\.01/,
  })
  const second = sandbox.buyer.escrowPayments().at(-1)!
  expect(await sandbox.buyer.reclaim(second.paymentInfoHash)).toHaveLength(1)
  await shows(
    [
      '  escrow (1 captured, 1 reclaimed) · nothing held',
      '    held 0  captured 0.006  voided 0.004  refunded 0.002  reclaimed 0.01 USDC',
      '    latest GET /hold held 0.01 → reclaimed 0.01 USDC · deferred',
    ],
    { path: '/hold', status: / 0 USDC +reclaimed(?!\w)/ },
  )

  // The steps in the order the dashboard drew them (each distinct set of lines once).
  const drawn = frames.map(escrowLines).filter((lines, i, all) => lines !== '' && lines !== all[i - 1])
  if (process.env.SVC_PRINT_ESCROW_LIFE) console.log(drawn.join('\n\n'))
  const at = (part: string) => drawn.findIndex((lines) => lines.includes(part))
  const order = [
    'latest GET /book held 0.01 USDC',
    '(0.004 still held)',
    '→ voided 0.004 USDC',
    '→ refunded 0.002',
    '→ reclaimed 0.01',
  ].map(at)
  expect(order.every((index) => index >= 0)).toBe(true)
  expect(order).toEqual([...order].sort((a, b) => a - b))
})
