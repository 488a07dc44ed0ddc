/**
 * A buyer's unilateral exit from a channel opened through svc's gateway (issue 24's done-when): paid by @x402/evm's
 * batch-settlement client, a deposit and many vouchers, the seller's claim and settle on schedule, then the buyer's
 * own initiateWithdraw on the contract, `POST /dev/time/advance` (what `svc time advance` calls) past the channel's
 * withdraw delay, and finalizeWithdraw. At each step the chain's balances (buyer, receiver, contract) and svc's
 * records (GET /channels/{id}, the seller's events) agree. Stats count voucher-paid requests and their channel money.
 */
import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import type { PaymentEvent } from '../../../server/payment-events.js'
import {
  batchAccept,
  batchBuyer,
  channelConfigOf,
  channelIdOf,
  channelOnChain,
  depositOf,
  withdrawCall,
} from './batch-kit.js'
import { startGatewayStack, usdcBalance, type Api, type GatewayStack, type Seller } from './helpers.js'

const price = 1_000n
const requests = 8
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

test('stats count voucher-paid requests as paid and their channel money as revenue', async () => {
  const { services, t } = stack
  const { seller: other, api: paid } = await stack.apiWith('/weather/{city}', [batchAccept(services, price)])
  const { buyer, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  for (let i = 0; i < 3; i++) expect((await pay(`${paid.gateway}/weather/rome`)).status).toBe(200)
  const stats = async () =>
    (await t.call(`/stats/overview?api_id=${paid.id}&days=1`, { jwt: other.jwt, environment: 'development' })).body
  await vi.waitFor(async () => expect((await stats()).totals.paid_requests).toBe(3), { timeout: 5_000 })
  const overview = await stats()
  // The deposit is the buyer's money in the channel, not revenue: the three requests' vouchers are.
  expect(overview.totals).toMatchObject({ paid_requests: 3, settlements: 0, unique_payers: 1 })
  expect(overview.revenue).toEqual([
    expect.objectContaining({ network: 'eip155:845320402', amount: (3n * price).toString() }),
  ])
  expect(overview.daily.at(-1).revenue).toEqual([expect.objectContaining({ amount: (3n * price).toString() })])
  // Its channel is claimed and settled before the next test counts the contract's balance.
  await vi.waitFor(async () => expect(await usdcBalance(services, other.payTo)).toBe(3n * price), {
    timeout: 15_000,
    interval: 200,
  })
})

// Last: it moves svc's clock 900 s ahead (a deposit signed by the machine's clock after it is refused).
test("deposit, vouchers, claim, settle, then the buyer's withdrawal after svc time advance: chain and records agree", async () => {
  const { services, t } = stack
  const events: PaymentEvent[] = []
  const unsubscribe = t.server.events.subscribe(seller.userId, (event) => events.push(event))
  const dev = { jwt: seller.jwt, environment: 'development' }
  const shown = async (id: string) => (await t.call(`/channels/${id}`, dev)).body
  const contract = () => usdcBalance(services, batchSettlementAddresses.settlement)
  const { buyer, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  const start = await usdcBalance(services, buyer.address)
  const held = await contract()
  try {
    let channelId: Hex | undefined
    let deposit: Hex | undefined
    for (let i = 0; i < requests; i++) {
      const response = await pay(`${api.gateway}/weather/paris`)
      expect(response.status, await response.text()).toBe(200)
      channelId ??= channelIdOf(response)
      deposit ??= depositOf(response)
    }
    const id = channelId!.toLowerCase()
    expect(await usdcBalance(services, buyer.address)).toBe(start - 10n * price)
    // The schedule may have settled some vouchers already: what the contract holds and the receiver got add up.
    expect((await contract()) + (await usdcBalance(services, seller.payTo))).toBe(held + 10n * price)

    // The manager claims the eight vouchers and settles them to the receiver.
    await vi.waitFor(async () => expect((await shown(id)).channel.settled).toBe(String(requests * 1_000)), {
      timeout: 15_000,
      interval: 200,
    })
    expect(await usdcBalance(services, seller.payTo)).toBe(BigInt(requests) * price)
    expect(await contract()).toBe(held + (10n - BigInt(requests)) * price)
    expect(await channelOnChain(services, channelId!)).toEqual({
      balance: 10n * price,
      totalClaimed: BigInt(requests) * price,
    })
    expect((await shown(id)).channel).toMatchObject({
      deposited: '10000',
      balance: '10000',
      spent: '8000',
      claimed: '8000',
      withdrawn: '0',
      vouchers: requests,
      state: 'open',
    })

    // The buyer leaves on its own: it asks the contract for what was not claimed (two prices).
    const config = await channelConfigOf(services, deposit!)
    const call = (functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]) =>
      withdrawCall(services, buyer, functionName, args)
    const available = 10n * price - BigInt(requests) * price
    const requested = await call('initiateWithdraw', [config, available])
    await vi.waitFor(async () => expect((await shown(id)).channel.state).toBe('withdrawing'), { timeout: 10_000 })
    expect((await shown(id)).transactions).toContainEqual(
      expect.objectContaining({ kind: 'withdraw_request', amount: available.toString(), transaction: requested }),
    )
    // The event follows the record (published once it is committed): waited for, not read at once.
    await vi.waitFor(() =>
      expect(events.filter((event) => event.type === 'channel.withdrawing')).toEqual([
        expect.objectContaining({ channel_id: id, amount: available.toString(), transaction: requested }),
      ]),
    )
    await expect(call('finalizeWithdraw', [config])).rejects.toThrow(/WithdrawDelayNotElapsed/)

    // svc time advance past the channel's delay (900 s): the withdrawal goes through.
    expect((await t.call('/dev/time/advance', { host: 'development', body: { seconds: 900 } })).status).toBe(200)
    const withdrawn = await call('finalizeWithdraw', [config])
    expect(await usdcBalance(services, buyer.address)).toBe(start - BigInt(requests) * price)
    expect(await usdcBalance(services, seller.payTo)).toBe(BigInt(requests) * price)
    expect(await contract()).toBe(held)
    const onChain = await channelOnChain(services, channelId!)
    expect(onChain).toEqual({ balance: BigInt(requests) * price, totalClaimed: BigInt(requests) * price })
    await vi.waitFor(async () => expect((await shown(id)).channel.state).toBe('closed'), { timeout: 10_000 })
    const final = await shown(id)
    expect(final.channel).toMatchObject({
      deposited: '10000',
      balance: onChain.balance.toString(),
      spent: '8000',
      claimed: onChain.totalClaimed.toString(),
      settled: '8000',
      refunded: '0',
      withdrawn: available.toString(),
      vouchers: requests,
    })
    expect(final.transactions).toContainEqual(
      expect.objectContaining({ kind: 'withdraw', amount: available.toString(), transaction: withdrawn }),
    )
    await vi.waitFor(() =>
      expect(events.filter((event) => event.type === 'channel.withdrawn')).toEqual([
        expect.objectContaining({
          channel_id: id,
          amount: available.toString(),
          transaction: withdrawn,
          charged: false,
        }),
      ]),
    )
    // The list agrees with the channel.
    const listed = await t.call(`/channels?api_id=${api.id}&state=closed`, dev)
    expect(listed.body.channels).toEqual([expect.objectContaining({ channel_id: id, withdrawn: available.toString() })])
  } finally {
    unsubscribe()
  }
})
