/**
 * A channel settle is recorded with the amount the chain's settle moved (its `Settled` log), not svc's records of
 * what was claimed and not settled: those can be behind the chain when the settle runs (a voucher's write of the
 * channel's claimed total as it verified it, before a claim landed; another process's claim recorded late). `svc up`
 * stops before its manager's settle (SVC_PAUSE_AT=channel-settle), the channel's record is set one voucher behind the
 * chain's claimed total there, and the settle goes on: its record says what the chain moved.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { createPublicClient, http, type Hex } from 'viem'
import { afterAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { seedApiWith, seedSeller, startSeeded } from '../../helpers/crash-at.js'
import { newAccount } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'
import { batchAcceptOf, channelIdOf, processBatchBuyer } from '../gateway/batch-kit.js'

const dirs: string[] = []
const running: SvcProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test("a settle is recorded with the amount the chain's settle moved, svc's record of the claims behind it", async () => {
  const price = 1_000n
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-settle-amount-'))
  dirs.push(dataDir)
  const svc = await startSeeded(running, dataDir, 'channel-settle')
  const receiver = newAccount().address
  const { api } = await seedApiWith(svc, 'settle-amount', receiver, [
    batchAcceptOf(svc.ready.usdc, price, { claimIntervalSeconds: 1, settleIntervalSeconds: 1 }),
  ])
  const { pay } = await processBatchBuyer(svc)
  let channelId: Hex | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(`${api.gateway_url}/weather/oslo`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
  }
  const id = channelId!.toLowerCase()
  // The manager claimed the three vouchers and is about to settle them: the channel's record falls one voucher behind.
  await vi.waitFor(() => expect(svc.stderr()).toContain('paused at channel-settle'), { timeout: 30_000, interval: 20 })
  const database = new Database(join(dataDir, 'svc.sqlite'), { timeout: 10_000 })
  try {
    const row = database.prepare('select data, claimed from batch_channels where channel_id = ?').get(id) as {
      data: string
      claimed: string
    }
    expect(row.claimed).toBe('3000')
    const behind = JSON.stringify({ ...JSON.parse(row.data), totalClaimed: '2000' })
    database.prepare('update batch_channels set data = ?, claimed = ? where channel_id = ?').run(behind, '2000', id)
  } finally {
    database.close()
  }
  svc.child.kill('SIGUSR2')

  const client = createPublicClient({ transport: http(svc.ready.rpc_url) })
  const settledOnChain = () =>
    client.getContractEvents({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      eventName: 'Settled',
      args: { receiver },
      fromBlock: 0n,
    })
  await expect.poll(async () => (await settledOnChain()).length, { timeout: 15_000 }).toBe(1)
  const [log] = await settledOnChain()
  expect(log!.args.amount).toBe(3n * price)
  const seller = await seedSeller(svc)
  await expect
    .poll(
      async () =>
        (await seller('GET', `/channels/${id}`)).transactions
          .filter((entry: { kind: string }) => entry.kind === 'settle')
          .map((entry: { amount: string; transaction: string }) => [entry.amount, entry.transaction]),
      { timeout: 15_000 },
    )
    .toEqual([['3000', log!.transactionHash]])
})
