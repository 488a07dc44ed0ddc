/**
 * Batch-settlement on a production API (issue 24): the gateway's external facilitator is svc's own facilitator by URL
 * (`productionFacilitatorUrl`, what SVC_FACILITATOR_URL sets), reached over HTTP as any facilitator would be. Paid by
 * @x402/evm's batch-settlement client: a deposit and vouchers, the channel manager's claim and settle on schedule,
 * and a refund, with the chain's balances and svc's production records agreeing.
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { batchBuyer, channelIdOf, channelOnChain, productionBatchApi } from './batch-kit.js'
import { newSeller, startUpstream, usdcBalance } from './helpers.js'

const price = 1_000n
let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>

beforeAll(async () => {
  services = await startChainServices()
  t = await startTestServer({ chain: services, productionFacilitatorUrl: services.facilitatorUrl })
  upstream = await startUpstream()
})
afterAll(async () => {
  await t?.stop()
  await upstream?.stop()
  await services?.stop()
})

test('a production API takes batch-settlement through an external facilitator: deposit, vouchers, claim, settle, refund', async () => {
  const seller = await newSeller(t)
  const api = await productionBatchApi(t, services, seller, upstream.url, price)
  const { buyer, scheme, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  const start = await usdcBalance(services, buyer.address)
  let channelId: `0x${string}` | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(`${api.gateway}/weather/lima`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
  }
  expect(await usdcBalance(services, buyer.address)).toBe(start - 10n * price)

  const prod = { jwt: seller.jwt, environment: 'production' }
  const shown = async () => (await t.call(`/channels/${channelId}`, prod)).body
  await vi.waitFor(async () => expect((await shown()).channel.settled).toBe('3000'), { timeout: 15_000, interval: 200 })
  expect(await usdcBalance(services, seller.payTo)).toBe(3n * price)
  expect(await channelOnChain(services, channelId!)).toEqual({ balance: 10n * price, totalClaimed: 3n * price })
  expect((await shown()).channel).toMatchObject({
    environment: 'production',
    chain_epoch: null,
    deposited: '10000',
    spent: '3000',
    claimed: '3000',
    vouchers: 3,
    state: 'open',
  })

  const refund = await scheme.refund(`${api.gateway}/weather/lima`, { fetch: localFetch })
  expect(refund.success).toBe(true)
  expect(await usdcBalance(services, buyer.address)).toBe(start - 3n * price)
  expect((await shown()).channel).toMatchObject({ refunded: '7000', state: 'closed' })
  // Journaled while they were sent, the deposit and refund left no row behind.
  await expect.poll(() => t.server.database.db.selectFrom('settlement_journal').selectAll().execute()).toEqual([])
  // The development side knows nothing of it.
  expect((await t.call(`/channels/${channelId}`, { jwt: seller.jwt, environment: 'development' })).status).toBe(404)
})
