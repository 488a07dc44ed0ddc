/**
 * A crash between a channel's claim and its settle loses nothing (issue 24, "Bad input"): `svc up` is killed
 * (`kill -9`) while its channel manager claims and settles: after the claim was mined, before anything recorded it
 * (SVC_PAUSE_AT=channel-action-claim), after the facilitator journaled it, before the gateway recorded it
 * (channel-claim-record), before the settle is sent (channel-settle: the claim recorded, the settle not)
 * or after the settle was mined, before anything recorded it (channel-action-settle). The next start records the claim
 * the chain has (with its transaction, and no second claim sent), settles what was claimed and not settled (the
 * manager keeps in memory that a settle is due, so without this it would wait for the next claim), or records the
 * settle the chain has. The receiver gets what the vouchers charged once, and svc's claims and settles are the
 * chain's. Paid through svc's gateway by @x402/evm's client.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, http, type Hex } from 'viem'
import { afterAll, expect, test } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { openDatabase } from '../../../server/db/database.js'
import { killAt, seedApiWith, seedSeller, startSeeded, usdcBalance } from '../../helpers/crash-at.js'
import { newAccount } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'
import { batchAcceptOf, channelIdOf, processBatchBuyer } from '../gateway/batch-kit.js'

const dirs: string[] = []
const running: SvcProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test.each(['channel-action-claim', 'channel-claim-record', 'channel-settle', 'channel-action-settle'])(
  'a claim or settle cut short at %s: the next start settles what was claimed once, as the chain has it',
  async (step) => {
    const price = 1_000n
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-settle-'))
    dirs.push(dataDir)
    const svc = await startSeeded(running, dataDir, step)
    const receiver = newAccount().address
    const { api } = await seedApiWith(svc, 'settles', receiver, [
      batchAcceptOf(svc.ready.usdc, price, { claimIntervalSeconds: 1, settleIntervalSeconds: 1 }),
    ])
    const { buyer, pay } = await processBatchBuyer(svc)
    const start = await usdcBalance(svc, buyer.address)
    let channelId: Hex | undefined
    for (let i = 0; i < 3; i++) {
      const response = await pay(`${api.gateway_url}/weather/oslo`)
      expect(response.status, await response.text()).toBe(200)
      channelId ??= channelIdOf(response)
    }
    // The manager claims within a second, then settles: svc stops there and is killed.
    await killAt(svc, dataDir, step)

    const again = await startSeeded(running, dataDir)
    const seller = await seedSeller(again)
    const id = channelId!.toLowerCase()
    await expect
      .poll(async () => (await seller('GET', `/channels/${id}`)).channel.settled, { timeout: 15_000 })
      .toBe('3000')
    const shown = await seller('GET', `/channels/${id}`)
    expect(shown.channel).toMatchObject({ deposited: '10000', spent: '3000', claimed: '3000', settled: '3000' })
    // Once: the receiver has what the vouchers charged, the buyer paid the deposit only.
    expect(await usdcBalance(again, receiver)).toBe(3n * price)
    expect(await usdcBalance(again, buyer.address)).toBe(start - 10n * price)
    const onChain = createPublicClient({ transport: http(again.ready.rpc_url) })
    const settles = await onChain.getContractEvents({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      eventName: 'Settled',
      args: { receiver },
      fromBlock: 0n,
    })
    const claims = await onChain.getContractEvents({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      eventName: 'Claimed',
      args: { receiver },
      fromBlock: 0n,
    })
    const ofKind = (kind: string) => shown.transactions.filter((entry: { kind: string }) => entry.kind === kind)
    const hashes = (entries: { transaction: string }[]) => entries.map((entry) => entry.transaction).sort()
    const amounts = (entries: { amount: string }[]) => entries.map((entry) => entry.amount).sort()
    expect(hashes(ofKind('settle'))).toEqual(settles.map((log) => log.transactionHash).sort())
    expect(amounts(ofKind('settle'))).toEqual(settles.map((log) => log.args.amount!.toString()).sort())
    expect(hashes(ofKind('claim'))).toEqual(claims.map((log) => log.transactionHash).sort())
    expect(amounts(ofKind('claim'))).toEqual(claims.map((log) => log.args.amount!.toString()).sort())
    await again.stop()
    const database = await openDatabase(join(dataDir, 'svc.sqlite'))
    try {
      const actions = await database.db.selectFrom('channel_actions').selectAll().execute()
      expect(actions.filter((action) => action.state === 'pending')).toEqual([])
      // Every claim svc sent is one the chain logged: none was sent again for what was already claimed.
      const sent = actions.filter((action) => action.kind === 'claim').map((action) => action.transaction)
      expect(sent.sort()).toEqual(claims.map((log) => log.transactionHash).sort())
    } finally {
      await database.close()
    }
  },
)
