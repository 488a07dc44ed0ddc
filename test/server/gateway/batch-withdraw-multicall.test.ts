/**
 * One buyer transaction moving several channels: the contract's `multicall` runs a buyer's initiateWithdraw (then
 * finalizeWithdraw) of two channels in one transaction, so their WithdrawInitiated (Withdrawn) logs share a
 * transaction hash and kind. Each channel svc keeps records its own withdraw request and withdrawal (a row each, the
 * unique index `batch_transactions_once` keys on the channel too), turns `withdrawing`, then `open` or `closed` as
 * the chain has it, its package record learns the request, and its seller gets the channel's events. A buyer paying
 * two APIs of svc's gateway (two receivers) with @x402/evm's batch-settlement client has two channels.
 */
import type { Channel } from '@x402/evm/batch-settlement/server'
import { createWalletClient, encodeFunctionData, http, type Hex } from 'viem'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import type { PaymentEvent } from '../../../server/payment-events.js'
import { batchAccept, batchBuyer, channelConfigOf, channelIdOf, channelOnChain, depositOf } from './batch-kit.js'
import { startGatewayStack, usdcBalance, type Api, type GatewayStack, type Seller } from './helpers.js'

const price = 1_000n
let stack: GatewayStack

beforeAll(async () => {
  stack = await startGatewayStack()
})
afterAll(async () => {
  await stack?.stop()
})

test("one multicall transaction requests, then finalizes, two channels' withdrawals: each channel records its own", async () => {
  const { services, t } = stack
  const { buyer, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  const start = await usdcBalance(services, buyer.address)
  const events: PaymentEvent[] = []
  const unsubscribes: (() => void)[] = []
  const sides: { seller: Seller; api: Api; id: string; channelId: Hex; deposit: Hex }[] = []
  try {
    for (let i = 0; i < 2; i++) {
      const { seller, api } = await stack.apiWith('/weather/{city}', [batchAccept(services, price)])
      unsubscribes.push(t.server.events.subscribe(seller.userId, (event) => events.push(event)))
      const first = await pay(`${api.gateway}/weather/oslo`)
      expect(first.status, await first.text()).toBe(200)
      const second = await pay(`${api.gateway}/weather/oslo`)
      expect(second.status, await second.text()).toBe(200)
      const channelId = channelIdOf(first)
      sides.push({ seller, api, id: channelId.toLowerCase(), channelId, deposit: depositOf(first)! })
    }
    expect(sides[0]!.id).not.toBe(sides[1]!.id)
    const dev = (side: (typeof sides)[number]) => ({ jwt: side.seller.jwt, environment: 'development' })
    const shown = async (side: (typeof sides)[number]) => (await t.call(`/channels/${side.id}`, dev(side))).body
    // Both channels' two vouchers claimed first: what the buyer asks back is what no claim can take meanwhile.
    for (const side of sides)
      await vi.waitFor(async () => expect((await shown(side)).channel.claimed).toBe('2000'), {
        timeout: 20_000,
        interval: 200,
      })

    // The buyer's own multicall: all of the first channel's unclaimed 8000, 5000 of the second's.
    const asked = [8n * price, 5n * price]
    const configs = await Promise.all(sides.map((side) => channelConfigOf(services, side.deposit)))
    const wallet = createWalletClient({ account: buyer, transport: http(services.sandboxChain.rpcUrl) })
    const multicall = async (calls: Hex[]) => {
      const { request } = await services.sandboxChain.client.simulateContract({
        account: buyer,
        address: batchSettlementAddresses.settlement,
        abi: x402BatchSettlementAbi,
        functionName: 'multicall',
        args: [calls],
      })
      const hash = await wallet.writeContract({ ...request, chain: null })
      const receipt = await services.sandboxChain.client.waitForTransactionReceipt({ hash })
      expect(receipt.status).toBe('success')
      return hash
    }
    const encode = (functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]) =>
      encodeFunctionData({ abi: x402BatchSettlementAbi, functionName, args: args as never })
    const requested = await multicall([
      encode('initiateWithdraw', [configs[0], asked[0]]),
      encode('initiateWithdraw', [configs[1], asked[1]]),
    ])
    for (const [i, side] of sides.entries()) {
      await vi.waitFor(async () => expect((await shown(side)).channel.state).toBe('withdrawing'), { timeout: 10_000 })
      expect(
        (await shown(side)).transactions.filter((row: { kind: string }) => row.kind === 'withdraw_request'),
      ).toEqual([expect.objectContaining({ amount: asked[i]!.toString(), transaction: requested })])
      // The package's record learns the request (as a request's on-chain read would tell it).
      const row = await t.server.database.db
        .selectFrom('batch_channels')
        .select('data')
        .where('channel_id', '=', side.id)
        .executeTakeFirstOrThrow()
      expect((JSON.parse(row.data!) as Channel).withdrawRequestedAt).toBeGreaterThan(0)
    }
    await vi.waitFor(() =>
      expect(
        events.filter((event) => event.type === 'channel.withdrawing').map((event) => [event.channel_id, event.amount]),
      ).toEqual(expect.arrayContaining(sides.map((side, i) => [side.id, asked[i]!.toString()]))),
    )

    // svc time advance past the channels' delay (900 s), then one multicall finalizes both.
    expect((await t.call('/dev/time/advance', { host: 'development', body: { seconds: 900 } })).status).toBe(200)
    const withdrawn = await multicall([
      encode('finalizeWithdraw', [configs[0]]),
      encode('finalizeWithdraw', [configs[1]]),
    ])
    expect(await usdcBalance(services, buyer.address)).toBe(start - 20n * price + asked[0]! + asked[1]!)
    const onChain = await Promise.all(sides.map((side) => channelOnChain(services, side.channelId)))
    expect(onChain).toEqual([
      { balance: 2n * price, totalClaimed: 2n * price },
      { balance: 5n * price, totalClaimed: 2n * price },
    ])
    // The first channel has nothing left for the buyer: closed; the second keeps 3000 of the buyer's: open again.
    const states = ['closed', 'open']
    for (const [i, side] of sides.entries()) {
      await vi.waitFor(
        async () =>
          expect((await shown(side)).transactions.some((row: { kind: string }) => row.kind === 'withdraw')).toBe(true),
        { timeout: 10_000 },
      )
      const final = await shown(side)
      expect(final.channel).toMatchObject({
        state: states[i],
        deposited: '10000',
        balance: onChain[i]!.balance.toString(),
        claimed: onChain[i]!.totalClaimed.toString(),
        withdrawn: asked[i]!.toString(),
      })
      expect(final.transactions.filter((row: { kind: string }) => row.kind.startsWith('withdraw'))).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ kind: 'withdraw_request', amount: asked[i]!.toString(), transaction: requested }),
          expect.objectContaining({ kind: 'withdraw', amount: asked[i]!.toString(), transaction: withdrawn }),
        ]),
      )
      expect(final.transactions.filter((row: { kind: string }) => row.kind.startsWith('withdraw'))).toHaveLength(2)
      const row = await t.server.database.db
        .selectFrom('batch_channels')
        .select('data')
        .where('channel_id', '=', side.id)
        .executeTakeFirstOrThrow()
      if (states[i] === 'open') expect((JSON.parse(row.data!) as Channel).withdrawRequestedAt).toBe(0)
    }
    await vi.waitFor(() =>
      expect(
        events.filter((event) => event.type === 'channel.withdrawn').map((event) => [event.channel_id, event.amount]),
      ).toEqual(expect.arrayContaining(sides.map((side, i) => [side.id, asked[i]!.toString()]))),
    )
    // Reading the blocks again changes nothing: one row per channel, transaction and kind.
    const receipt = await services.sandboxChain.client.getTransactionReceipt({ hash: withdrawn })
    await t.server.database.db.deleteFrom('channel_log_cursors').execute()
    await vi.waitFor(
      async () => {
        const cursor = await t.server.database.db
          .selectFrom('channel_log_cursors')
          .select('next_block')
          .executeTakeFirst()
        expect(BigInt(cursor?.next_block ?? 0)).toBeGreaterThan(receipt.blockNumber)
      },
      { timeout: 10_000, interval: 200 },
    )
    const rows = await t.server.database.db
      .selectFrom('batch_transactions')
      .select(['channel_id', 'kind', 'transaction'])
      .where('transaction', 'in', [requested, withdrawn])
      .execute()
    expect(rows.map((row) => `${row.channel_id} ${row.kind} ${row.transaction}`).sort()).toEqual(
      sides.flatMap((side) => [`${side.id} withdraw ${withdrawn}`, `${side.id} withdraw_request ${requested}`]).sort(),
    )
  } finally {
    for (const unsubscribe of unsubscribes) unsubscribe()
  }
})
