/**
 * The live stream of a batch-settlement channel (`GET /events`' bus): each voucher's and the deposit's
 * payment.settled carries the channel id; the channel manager's claim and settle are channel.claimed and
 * channel.settled events of the channel's seller, with the transactions and amounts svc recorded; a refund is
 * channel.refunded (not charged). Paid by @x402/evm's own batch-settlement client.
 */
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import type { PaymentEvent } from '../../../server/payment-events.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { batchAccept, batchBuyer } from './batch-kit.js'
import { startGatewayStack, type Api, type GatewayStack, type Seller } from './helpers.js'

const price = 1_000n
let stack: GatewayStack
let seller: Seller
let api: Api

beforeAll(async () => {
  stack = await startGatewayStack()
  ;({ seller, api } = await stack.apiWith('/weather/{city}', [batchAccept(stack.services, price)]))
})
afterAll(async () => {
  await stack?.stop()
})

test("a channel's vouchers, claim, settle and refund on the seller's event stream", async () => {
  const events: PaymentEvent[] = []
  const stop = stack.t.server.events.subscribe(seller.userId, (event) => events.push(event))
  try {
    const { buyer, scheme, pay } = batchBuyer(stack.services)
    await stack.services.manager.fund(buyer.address, 'usdc', '1')
    let channelId = ''
    for (let i = 0; i < 3; i++) {
      const response = await pay(`${api.gateway}/weather/paris`)
      expect(response.status, await response.text()).toBe(200)
      const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
      channelId = (settled.extra as { channelState: { channelId: Hex } }).channelState.channelId.toLowerCase()
    }
    const settledEvents = events.filter((event) => event.type === 'payment.settled')
    expect(settledEvents).toHaveLength(3)
    for (const event of settledEvents) expect(event).toMatchObject({ channel_id: channelId, charged: true })

    const sum = (type: string) =>
      events.filter((event) => event.type === type).reduce((total, event) => total + BigInt(event.amount!), 0n)
    // The schedule may claim and settle more than once while the requests come in: the sums agree.
    await vi.waitFor(() => expect([sum('channel.claimed'), sum('channel.settled')]).toEqual([3n * price, 3n * price]), {
      timeout: 15_000,
      interval: 100,
    })
    const recorded = await stack.t.server.database.db
      .selectFrom('batch_transactions')
      .select(['kind', 'transaction'])
      .where('receiver', '=', seller.payTo.toLowerCase())
      .execute()
    for (const type of ['channel.claimed', 'channel.settled'] as const) {
      const kind = type === 'channel.claimed' ? 'claim' : 'settle'
      const told = events.filter((event) => event.type === type)
      expect(told.map((event) => event.transaction).sort()).toEqual(
        recorded
          .filter((entry) => entry.kind === kind)
          .map((entry) => entry.transaction)
          .sort(),
      )
      for (const event of told)
        expect(event).toMatchObject({
          channel_id: channelId,
          api_id: api.id,
          endpoint_id: null,
          payer: buyer.address.toLowerCase(),
          charged: false,
        })
      expect(new Set(told.map((event) => event.pay_to?.toLowerCase()))).toEqual(new Set([seller.payTo.toLowerCase()]))
    }

    const refund = await scheme.refund(`${api.gateway}/weather/paris`, { fetch: localFetch })
    expect(refund.success).toBe(true)
    const refunded = events.filter((event) => event.type === 'channel.refunded')
    expect(refunded).toEqual([
      expect.objectContaining({
        channel_id: channelId,
        amount: (7n * price).toString(),
        transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        charged: false,
      }),
    ])
    expect(events.filter((event) => event.type === 'payment.settled')).toHaveLength(3)
  } finally {
    stop()
  }
})
