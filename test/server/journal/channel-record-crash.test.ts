/**
 * A payment channel's deposit is in the gateway's settlement journal like every other settlement (issue 24): `svc up`
 * is killed (`kill -9`) after the facilitator's deposit transaction was mined and before svc recorded it (before the
 * facilitator journaled its outcome, SVC_PAUSE_AT=channel-action-deposit, or after, channel-record); the next start on the same data dir reads the channel and the transaction on the
 * chain and records them: the channel's deposit (GET /channels/{id}: deposited, its deposit transaction) and the
 * request the deposit paid, as the package's record charged it. Paid through svc's gateway by @x402/evm's client.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, http } from 'viem'
import { afterAll, expect, test } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { openDatabase } from '../../../server/db/database.js'
import { killAt, seedApiWith, seedSeller, startSeeded } from '../../helpers/crash-at.js'
import { newAccount } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'
import { batchAcceptOf, processBatchBuyer } from '../gateway/batch-kit.js'

const dirs: string[] = []
const running: SvcProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()))
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test.each([
  // After the package's record charged the request: the request is recorded as charged.
  { step: 'channel-record', charged: true },
  // Before the facilitator journaled the deposit's outcome: the request was never charged (nor answered).
  { step: 'channel-action-deposit', charged: false },
])(
  'a deposit mined as svc was killed at $step is recorded from the chain at the next start',
  async ({ step, charged }) => {
    const price = 1_000n
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-record-'))
    dirs.push(dataDir)
    const svc = await startSeeded(running, dataDir, step)
    const receiver = newAccount().address
    const { api } = await seedApiWith(svc, 'deposits', receiver, [
      batchAcceptOf(svc.ready.usdc, price, { claimIntervalSeconds: 3600, settleIntervalSeconds: 3600 }),
    ])
    const { buyer, pay } = await processBatchBuyer(svc)
    // The first request deposits; svc stops once the deposit is mined, before its record, and is killed there.
    const paying = pay(`${api.gateway_url}/weather/oslo`).catch((error: unknown) => error)
    await killAt(svc, dataDir, step)
    await paying

    const again = await startSeeded(running, dataDir)
    const onChain = createPublicClient({ transport: http(again.ready.rpc_url) })
    const [deposited] = await onChain.getContractEvents({
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      eventName: 'Deposited',
      fromBlock: 0n,
    })
    expect(deposited?.args.amount).toBe(10n * price)
    const channelId = deposited!.args.channelId!.toLowerCase()
    const seller = await seedSeller(again)
    const shown = await seller('GET', `/channels/${channelId}`)
    expect(shown.channel).toMatchObject({
      api_id: api.id,
      payer: buyer.address.toLowerCase(),
      deposited: '10000',
      balance: '10000',
      spent: charged ? '1000' : '0',
      vouchers: charged ? 1 : 0,
      state: 'open',
    })
    expect(shown.transactions).toEqual([
      expect.objectContaining({ kind: 'deposit', amount: '10000', transaction: deposited!.transactionHash }),
    ])
    expect(shown.vouchers).toEqual(charged ? [expect.objectContaining({ path: '/weather/oslo', amount: '1000' })] : [])
    await again.stop()
    const database = await openDatabase(join(dataDir, 'svc.sqlite'))
    try {
      expect(await database.db.selectFrom('settlement_journal').selectAll().execute()).toEqual([])
    } finally {
      await database.close()
    }
  },
)
