/**
 * x402 batch-settlement (payment channels) through svc's gateway, paid by @x402/evm's own batch-settlement client
 * (with @x402/fetch): a deposit, many requests on vouchers, the channel manager's claim and settle on the seller's
 * schedule, a refund that never reaches the upstream, with the chain's balances and svc's records agreeing at each
 * step; an upstream that fails leaves the voucher uncharged.
 */
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { batchAccept, batchBuyer, channelIdOf, channelOnChain as onChain } from './batch-kit.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
  type Seller,
} from './helpers.js'

const price = 1_000n
let stack: GatewayStack
let seller: Seller
let api: Awaited<ReturnType<typeof createApi>>

beforeAll(async () => {
  stack = await startGatewayStack()
  seller = await newSeller(stack.t)
  api = await createApi(stack.t, seller, stack.upstream.url)
  for (const path_pattern of ['/weather/{city}', '/status/{code}'])
    await addEndpoint(stack.t, seller, api.id, {
      method: 'GET',
      path_pattern,
      accepts: [batchAccept(stack.services, price)],
    })
})
afterAll(async () => {
  await stack?.stop()
})

const channelOnChain = (id: Hex) => onChain(stack.services, id)
const record = (channelId: string) =>
  stack.t.server.database.db
    .selectFrom('batch_channels')
    .selectAll()
    .where('channel_id', '=', channelId.toLowerCase())
    .executeTakeFirstOrThrow()
const buyerFetch = () => batchBuyer(stack.services)

describe('batch-settlement through the gateway', () => {
  test('deposit, vouchers, claim and settle on schedule, refund: chain and records agree', async () => {
    const { buyer, scheme, pay } = buyerFetch()
    await stack.services.manager.fund(buyer.address, 'usdc', '1')
    const start = await usdcBalance(stack.services, buyer.address)
    const responses = []
    for (let i = 0; i < 5; i++) {
      const response = await pay(`${api.gateway}/weather/paris`)
      const text = await response.text()
      expect(response.status, text).toBe(200)
      responses.push(decodePaymentResponseHeader(response.headers.get('payment-response')!))
    }
    expect(responses[0]!.transaction).toMatch(/^0x/)
    expect(responses[1]!.transaction).toBe('')
    const channelId = (responses[0]!.extra as { channelState: { channelId: Hex } }).channelState.channelId
    expect(await usdcBalance(stack.services, buyer.address)).toBe(start - 10n * price)

    // The manager claims the five vouchers and settles them to the pay-to address within its schedule.
    await vi.waitFor(
      async () => {
        expect(await usdcBalance(stack.services, seller.payTo)).toBe(5n * price)
      },
      { timeout: 15_000, interval: 200 },
    )
    expect(await channelOnChain(channelId)).toEqual({ balance: 10n * price, totalClaimed: 5n * price })
    await vi.waitFor(async () => expect((await record(channelId)).settled).toBe('5000'), { timeout: 5000 })
    expect(await record(channelId)).toMatchObject({
      deposited: '10000',
      balance: '10000',
      spent: '5000',
      claimed: '5000',
      settled: '5000',
      refunded: '0',
      vouchers: 5,
      state: 'open',
      user_id: seller.userId,
      api_id: api.id,
    })

    // The refund request goes to the gateway, never to the upstream.
    const calls = stack.upstream.calls.length
    const refund = await scheme.refund(`${api.gateway}/weather/paris`, { fetch: localFetch })
    expect(refund.success).toBe(true)
    expect(stack.upstream.calls.length).toBe(calls)
    expect(await usdcBalance(stack.services, buyer.address)).toBe(start - 5n * price)
    // The chain keeps the claimed part in the channel's balance: what is left to take is balance − totalClaimed, 0.
    const onChain = await channelOnChain(channelId)
    expect(onChain).toEqual({ balance: 5n * price, totalClaimed: 5n * price })
    expect(await record(channelId)).toMatchObject({
      refunded: '5000',
      state: 'closed',
      balance: onChain.balance.toString(),
      claimed: onChain.totalClaimed.toString(),
    })
    const transactions = await stack.t.server.database.db
      .selectFrom('batch_transactions')
      .select(['kind', 'amount', 'vouchers', 'transaction'])
      .where('receiver', '=', seller.payTo.toLowerCase())
      .orderBy('created_at')
      .execute()
    // The schedule may claim (and settle) more than once while the five requests come in: the sums agree.
    const sum = (kind: string) =>
      transactions.filter((entry) => entry.kind === kind).reduce((total, entry) => total + BigInt(entry.amount), 0n)
    expect([...new Set(transactions.map((entry) => entry.kind))]).toEqual(['deposit', 'claim', 'settle', 'refund'])
    expect([sum('deposit'), sum('claim'), sum('settle'), sum('refund')]).toEqual([
      10n * price,
      5n * price,
      5n * price,
      5n * price,
    ])
    for (const { transaction } of transactions) expect(transaction).toMatch(/^0x[0-9a-f]{64}$/)
    // The deposit and the refund were journaled before they were sent, and their rows went once they were recorded.
    await expect
      .poll(() => stack.t.server.database.db.selectFrom('settlement_journal').selectAll().execute())
      .toEqual([])

    // The seller reads the same through the control plane: the list, the CSV, and the channel with its requests.
    const dev = { jwt: seller.jwt, environment: 'development' }
    const listed = await stack.t.call(`/channels?api_id=${api.id}`, dev)
    expect(listed.status).toBe(200)
    expect(listed.body.channels).toEqual([
      expect.objectContaining({
        channel_id: channelId.toLowerCase(),
        pay_to: seller.payTo.toLowerCase(),
        payer: buyer.address.toLowerCase(),
        deposited: '10000',
        spent: '5000',
        settled: '5000',
        refunded: '5000',
        vouchers: 5,
        state: 'closed',
        old_chain: false,
      }),
    ])
    const csv = await stack.t.call(`/channels?api_id=${api.id}&format=csv`, dev)
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(String(csv.body).split('\r\n')[0]).toMatch(/^channel_id,api_id,environment,/)
    const shown = await stack.t.call(`/channels/${channelId}`, dev)
    expect(shown.body.vouchers.map((v: { cumulative: string }) => v.cumulative)).toEqual([
      '5000',
      '4000',
      '3000',
      '2000',
      '1000',
    ])
    expect(shown.body.transactions.map((entry: { kind: string }) => entry.kind)).toContain('refund')
    const stranger = await newSeller(stack.t)
    expect(
      (await stack.t.call(`/channels/${channelId}`, { jwt: stranger.jwt, environment: 'development' })).status,
    ).toBe(404)
  })

  test('an upstream that answers ≥ 400 leaves the voucher uncharged and the channel free', async () => {
    const { buyer, pay } = buyerFetch()
    await stack.services.manager.fund(buyer.address, 'usdc', '1')
    const first = await pay(`${api.gateway}/status/200`)
    expect(first.status).toBe(200)
    const channelId = channelIdOf(first)
    const failed = await pay(`${api.gateway}/status/404`)
    expect(failed.status).toBe(404)
    expect(failed.headers.get('payment-response')).toBeNull()
    const again = await pay(`${api.gateway}/status/200`)
    expect(again.status).toBe(200)
    expect(await record(channelId)).toMatchObject({ spent: '2000', vouchers: 2 })
  })

  test('what a refund claimed is settled to the receiver after it, without waiting for another claim', async () => {
    // The manager claims hourly: the refund's own claim is all there is to settle.
    const other = await newSeller(stack.t)
    const refunds = await createApi(stack.t, other, stack.upstream.url)
    await addEndpoint(stack.t, other, refunds.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [batchAccept(stack.services, price, { claimIntervalSeconds: 3600 })],
    })
    const { buyer, scheme, pay } = buyerFetch()
    await stack.services.manager.fund(buyer.address, 'usdc', '1')
    for (let i = 0; i < 3; i++) expect((await pay(`${refunds.gateway}/weather/rome`)).status).toBe(200)
    expect((await scheme.refund(`${refunds.gateway}/weather/rome`, { fetch: localFetch })).success).toBe(true)
    await expect.poll(() => usdcBalance(stack.services, other.payTo), { timeout: 10_000 }).toBe(3n * price)
    await expect
      .poll(
        async () =>
          (
            await stack.t.server.database.db
              .selectFrom('batch_channels')
              .select('settled')
              .where('receiver', '=', other.payTo.toLowerCase())
              .executeTakeFirstOrThrow()
          ).settled,
      )
      .toBe('3000')
  })
})
