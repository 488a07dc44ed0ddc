/**
 * A channel settle on a twin (`svc up --twin base-sepolia`, eip155:84532) cut short by `kill -9` after it was mined
 * (SVC_PAUSE_AT=channel-action-settle): the twin starts empty each run (a new epoch), so the next start resolves the
 * pending settle as sent on a chain that is gone, never as landed, and records nothing for it. (Why recovery never
 * looks a twin's channels up in svc's records: a development API takes only the Sandbox network, and a twin's
 * action outlives no restart of its chain. Should twins ever keep their chain, this test fails and recovery must
 * find the gateway's records of them.) The seller is the official `@x402/express` with `@x402/evm`'s server scheme
 * and channel manager on the twin, paid by `@x402/fetch`, all through svc's facilitator.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { BatchSettlementEvmScheme as BatchServer } from '@x402/evm/batch-settlement/server'
import { paymentMiddleware } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { createPublicClient, http, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { listen, type Listening } from '../../../core/http.js'
import { listChannelActions } from '../../../server/db/channel-actions.js'
import { openDatabase } from '../../../server/db/database.js'
import { killAt } from '../../helpers/crash-at.js'
import { postJson } from '../../helpers/payments.js'
import { startSvcProcess, type SvcProcess } from '../../helpers/svc-process.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-twin-'))
const running: SvcProcess[] = []
let seller: Listening | undefined

afterAll(async () => {
  await seller?.close()
  await Promise.all(running.map((svc) => svc.stop()))
  rmSync(dataDir, { recursive: true, force: true })
})

type Twin = { network: `${string}:${string}`; rpc_url: string; usdc: Address }
const twinOf = (svc: SvcProcess) => svc.ready.twins[0] as Twin
const logsOf = (twin: Twin, eventName: 'Claimed' | 'Settled', receiver: Address) =>
  createPublicClient({ transport: http(twin.rpc_url) }).getContractEvents({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    eventName,
    args: { receiver },
    fromBlock: 0n,
  })

test('a settle mined on a twin as svc was killed is resolved as gone with the twin at the next start', async () => {
  const svc = await startSvcProcess(
    ['--data-dir', dataDir, '--twin', 'base-sepolia'],
    { ...process.env, SVC_PAUSE_AT: 'channel-action-settle' },
    { ephemeral: false },
  )
  running.push(svc)
  const twin = twinOf(svc)
  const receiver = privateKeyToAccount(generatePrivateKey()).address
  const payer = privateKeyToAccount(generatePrivateKey())
  const funded = await postJson(`${svc.ready.chain_manager_url}/faucet`, {
    address: payer.address,
    network: twin.network,
  })
  expect(funded.status).toBe(200)
  const facilitator = new HTTPFacilitatorClient({ url: svc.ready.facilitator_url })
  const scheme = new BatchServer(receiver, { withdrawDelay: 900 })
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /data': {
          accepts: {
            scheme: 'batch-settlement',
            network: twin.network,
            payTo: receiver,
            price: { amount: '1000', asset: twin.usdc, extra: { name: 'USDC', version: '2' } },
          },
        },
      },
      new x402ResourceServer(facilitator).register(twin.network, scheme),
    ),
  )
  app.get('/data', (_req, res) => void res.json({ data: 'paid' }))
  seller = await listen(app)
  const chain = createPublicClient({ transport: http(twin.rpc_url) })
  const pay = wrapFetchWithPayment(
    fetch,
    new x402Client()
      .register(
        twin.network,
        new BatchClient(toClientEvmSigner(payer, chain), { depositPolicy: { depositMultiplier: 10 } }),
      )
      .setSpendControls({ allowedAssets: true }),
  )
  for (let i = 0; i < 2; i++) expect((await pay(`${seller.url}/data`)).status).toBe(200)

  // The claim lands and is journaled; the settle is mined, svc stops before journaling it, and is killed there.
  const manager = scheme.createChannelManager(facilitator, twin.network, twin.usdc)
  const settling = manager.claimAndSettle().catch((error: unknown) => error)
  await vi.waitFor(() => expect(svc.stderr()).toContain('paused at channel-action-settle'), { timeout: 30_000 })
  const [claimed] = await logsOf(twin, 'Claimed', receiver)
  const [settled] = await logsOf(twin, 'Settled', receiver)
  expect(settled?.args.amount).toBe(2_000n)
  await killAt(svc, dataDir, 'channel-action-settle')
  await settling

  const again = await startSvcProcess(['--data-dir', dataDir, '--twin', 'base-sepolia'], process.env, {
    ephemeral: false,
  })
  running.push(again)
  // The twin came back empty: the settle's transaction is nowhere any more.
  expect(await logsOf(twinOf(again), 'Settled', receiver)).toEqual([])
  await again.stop()
  const database = await openDatabase(join(dataDir, 'svc.sqlite'))
  try {
    const actions = await listChannelActions(database.db, { receiver })
    expect(actions.find((action) => action.kind === 'claim')).toMatchObject({
      network: twin.network,
      state: 'settled',
      transaction: claimed!.transactionHash,
    })
    expect(actions.find((action) => action.kind === 'settle')).toMatchObject({
      network: twin.network,
      state: 'failed',
      error: 'the chain it was sent on is gone',
      transaction: null,
    })
    expect(await database.db.selectFrom('batch_transactions').selectAll().execute()).toEqual([])
  } finally {
    await database.close()
  }
})
