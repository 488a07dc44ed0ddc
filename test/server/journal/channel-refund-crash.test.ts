/**
 * A payment channel's refund is in the gateway's settlement journal like its deposit (issue 24): `svc up` is killed
 * (`kill -9`) after the refund's transaction was mined and before svc recorded it, at either step: before the
 * facilitator journaled its outcome (SVC_PAUSE_AT=channel-action-refund: both journals hold it pending), or after,
 * before the gateway's record (channel-record, its second stop: the deposit's, the first, is let go with SIGUSR2).
 * The next start on the same data dir finds the refund on the chain and records it: the channel (GET /channels/{id}) refunded what the chain's Refunded
 * event says, closed, its balance and claimed the chain's; the refund once, with its transaction; the facilitator's
 * own journal of the action settled with it; what the refund claimed settled to the receiver; nothing moved twice
 * (the buyer has back exactly what it did not spend, the receiver has what it spent).
 * Paid through svc's gateway by @x402/evm's client.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, http, type Hex } from 'viem'
import { afterAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { openDatabase } from '../../../server/db/database.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { killNow, seedApiWith, seedSeller, startSeeded, usdcBalance } from '../../helpers/crash-at.js'
import { newAccount } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'
import { batchAcceptOf, channelIdOf, channelOnChainAt, processBatchBuyer } from '../gateway/batch-kit.js'

const dirs: string[] = []
const running: SvcProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const pauses = (svc: SvcProcess, step: string) => svc.stderr().split(`paused at ${step}`).length - 1

test.each([
  // The step, and how many stops there come before the refund's (the deposit's, let go).
  { step: 'channel-action-refund', before: 0 },
  { step: 'channel-record', before: 1 },
])(
  'a refund mined as svc was killed at $step is recorded from the chain at the next start',
  async ({ step, before }) => {
    const price = 1_000n
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-refund-'))
    dirs.push(dataDir)
    const svc = await startSeeded(running, dataDir, step)
    const receiver = newAccount().address
    // The manager's schedule is far off: the refund itself claims what the vouchers charged.
    const { api } = await seedApiWith(svc, 'refunds', receiver, [
      batchAcceptOf(svc.ready.usdc, price, { claimIntervalSeconds: 3600, settleIntervalSeconds: 3600 }),
    ])
    const { buyer, scheme, pay } = await processBatchBuyer(svc)
    const start = await usdcBalance(svc, buyer.address)
    const url = `${api.gateway_url}/weather/oslo`

    // The deposit may stop at the same step: let it go on.
    const first = pay(url)
    if (before > 0) {
      await vi.waitFor(() => expect(pauses(svc, step)).toBe(before), { timeout: 30_000, interval: 20 })
      svc.child.kill('SIGUSR2')
    }
    const opened = await first
    expect(opened.status).toBe(200)
    const channelId = channelIdOf(opened).toLowerCase() as Hex
    for (let i = 0; i < 2; i++) expect((await pay(url)).status).toBe(200)

    // The refund: mined, then svc stops before its record and is killed there.
    const refunding = scheme.refund(url, { fetch: localFetch }).catch((error: unknown) => error)
    await vi.waitFor(() => expect(pauses(svc, step)).toBe(before + 1), { timeout: 30_000, interval: 20 })
    await killNow(svc, dataDir)
    await refunding

    const again = await startSeeded(running, dataDir)
    const onChain = createPublicClient({ transport: http(again.ready.rpc_url) })
    const refunds = await onChain.getContractEvents({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      eventName: 'Refunded',
      fromBlock: 0n,
    })
    expect(refunds).toHaveLength(1)
    expect(refunds[0]!.args.amount).toBe(7n * price)
    const { balance, totalClaimed } = await channelOnChainAt(onChain, channelId)
    expect({ balance, totalClaimed }).toEqual({ balance: 3n * price, totalClaimed: 3n * price })
    // Nothing moved twice: the buyer has back all but what its three requests spent.
    expect(await usdcBalance(again, buyer.address)).toBe(start - 3n * price)

    const seller = await seedSeller(again)
    // What the refund claimed is settled to the receiver at the start (the manager that was to settle it died).
    await expect
      .poll(async () => (await seller('GET', `/channels/${channelId}`)).channel.settled, { timeout: 15_000 })
      .toBe('3000')
    expect(await usdcBalance(again, receiver)).toBe(3n * price)
    const shown = await seller('GET', `/channels/${channelId}`)
    expect(shown.channel).toMatchObject({
      api_id: api.id,
      deposited: '10000',
      spent: '3000',
      refunded: '7000',
      balance: balance.toString(),
      claimed: totalClaimed.toString(),
      vouchers: 3,
      state: 'closed',
    })
    const kinds = shown.transactions.map((entry: { kind: string }) => entry.kind).sort()
    expect(kinds).toEqual(['deposit', 'refund', 'settle'])
    expect(shown.transactions).toContainEqual(
      expect.objectContaining({ kind: 'refund', amount: '7000', transaction: refunds[0]!.transactionHash }),
    )
    await again.stop()
    const database = await openDatabase(join(dataDir, 'svc.sqlite'))
    try {
      expect(await database.db.selectFrom('settlement_journal').selectAll().execute()).toEqual([])
      // The facilitator's journal of the refund: settled, with the transaction the chain has.
      const actions = await database.db
        .selectFrom('channel_actions')
        .select(['kind', 'state', 'transaction'])
        .where('kind', '=', 'refund')
        .execute()
      expect(actions).toEqual([{ kind: 'refund', state: 'settled', transaction: refunds[0]!.transactionHash }])
      // The package's record let go of the channel, as its after-settle hook does: its manager has nothing to claim.
      const stored = await database.db
        .selectFrom('batch_channels')
        .select('data')
        .where('channel_id', '=', channelId)
        .executeTakeFirstOrThrow()
      expect(stored.data).toBeNull()
    } finally {
      await database.close()
    }
  },
)
