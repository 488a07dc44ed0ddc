/**
 * A channel settle is recorded with the amount the chain's settle moved (its `Settled` log), not svc's records of
 * what was claimed and not settled: those can be behind the chain when the settle runs (a voucher's write of the
 * channel's claimed total as it verified it, before a claim landed; another process's claim recorded late; CI's
 * channel-claims-cluster recorded a settle of 13000 as 12000). The manager stops before its settle
 * (SVC_PAUSE_AT=channel-settle, in this process), the channel's record is set one voucher behind the chain's claimed
 * total there, and the settle goes on: its record says what the chain moved.
 */
import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { batchAccept, batchBuyer, channelIdOf } from './batch-kit.js'
import { startGatewayStack, type GatewayStack } from './helpers.js'

const price = 1_000n
let stack: GatewayStack

beforeAll(async () => {
  stack = await startGatewayStack()
})
afterAll(async () => {
  delete process.env.SVC_PAUSE_AT
  process.emit('SIGUSR2')
  await stack?.stop()
})

test("a settle is recorded with the amount the chain's settle moved, svc's record of the claims behind it", async () => {
  const { seller, api } = await stack.apiWith('/weather/{city}', [
    batchAccept(stack.services, price, { claimIntervalSeconds: 1, settleIntervalSeconds: 1 }),
  ])
  const stderr = vi.spyOn(process.stderr, 'write')
  process.env.SVC_PAUSE_AT = 'channel-settle'
  const { buyer, pay } = batchBuyer(stack.services)
  await stack.services.manager.fund(buyer.address, 'usdc', '1')
  let channelId: Hex | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(`${api.gateway}/weather/oslo`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
  }
  const id = channelId!.toLowerCase()
  const db = stack.t.server.database.db
  const row = () => db.selectFrom('batch_channels').selectAll().where('channel_id', '=', id).executeTakeFirstOrThrow()
  // The manager claimed the three vouchers (in one claim or more) and is about to settle them.
  await vi.waitFor(
    async () => {
      expect(stderr.mock.calls.some(([text]) => String(text).includes('paused at channel-settle'))).toBe(true)
      expect((await row()).claimed).toBe('3000')
    },
    { timeout: 30_000, interval: 50 },
  )
  delete process.env.SVC_PAUSE_AT
  stderr.mockRestore()
  // The channel's record falls one voucher behind the chain's claimed total, and the settle goes on.
  const behind = JSON.stringify({ ...JSON.parse((await row()).data!), totalClaimed: '2000' })
  await db.updateTable('batch_channels').set({ data: behind, claimed: '2000' }).where('channel_id', '=', id).execute()
  process.emit('SIGUSR2')

  const settledOnChain = () =>
    stack.services.sandboxChain.client.getContractEvents({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      eventName: 'Settled',
      args: { receiver: seller.payTo },
      fromBlock: 0n,
    })
  await expect.poll(async () => (await settledOnChain()).length, { timeout: 15_000 }).toBe(1)
  const [log] = await settledOnChain()
  expect(log!.args.amount).toBe(3n * price)
  const settles = () =>
    db
      .selectFrom('batch_transactions')
      .select(['amount', 'transaction'])
      .where('receiver', '=', seller.payTo.toLowerCase())
      .where('kind', '=', 'settle')
      .execute()
  await expect.poll(settles, { timeout: 15_000 }).toEqual([{ amount: '3000', transaction: log!.transactionHash }])
}, 120_000)
