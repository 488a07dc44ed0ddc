/**
 * A batch-settlement claim on the chain when svc dies (issue 24): `svc up` is killed (`kill -9`) after the claim's
 * transaction was mined and before its outcome was journaled (SVC_PAUSE_AT=channel-action-claim); the next start on
 * the same data dir finds the journal's pending claim and resolves it from the chain, with its transaction. The seller
 * is the official `@x402/express` one with `@x402/evm`'s server scheme and channel manager, paid by `@x402/fetch`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { BatchSettlementEvmScheme as BatchServer } from '@x402/evm/batch-settlement/server'
import { paymentMiddleware } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { createPublicClient, http, type Address, type Hex } from 'viem'
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

const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-crash-'))
const running: SvcProcess[] = []
let seller: Listening | undefined

afterAll(async () => {
  await seller?.close()
  await Promise.all(running.map((svc) => svc.stop()))
  rmSync(dataDir, { recursive: true, force: true })
})

/** An @x402/express seller of `GET /data` for 1,000 units through batch-settlement on `facilitatorUrl`. */
async function startSeller(svc: SvcProcess, receiver: Address) {
  const facilitator = new HTTPFacilitatorClient({ url: svc.ready.facilitator_url })
  const scheme = new BatchServer(receiver, { withdrawDelay: 900 })
  const network = svc.ready.network as never
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /data': {
          accepts: {
            scheme: 'batch-settlement',
            network,
            payTo: receiver,
            price: { amount: '1000', asset: svc.ready.usdc, extra: { name: 'USDC', version: '2' } },
          },
        },
      },
      new x402ResourceServer(facilitator).register(network, scheme),
    ),
  )
  app.get('/data', (_req, res) => void res.json({ data: 'paid' }))
  seller = await listen(app)
  return { url: `${seller.url}/data`, manager: scheme.createChannelManager(facilitator, network, svc.ready.usdc) }
}

test('a claim mined as svc was killed is resolved from the chain at the next start', { timeout: 120_000 }, async () => {
  const svc = await startSvcProcess(
    ['--data-dir', dataDir],
    { ...process.env, SVC_PAUSE_AT: 'channel-action-claim' },
    {
      ephemeral: false,
    },
  )
  running.push(svc)
  const receiver = privateKeyToAccount(generatePrivateKey()).address
  const payer = privateKeyToAccount(generatePrivateKey())
  expect((await postJson(`${svc.ready.chain_manager_url}/faucet`, { address: payer.address })).status).toBe(200)
  const chain = createPublicClient({ transport: http(svc.ready.rpc_url) })
  const { url, manager } = await startSeller(svc, receiver)
  const pay = wrapFetchWithPayment(
    fetch,
    new x402Client()
      .register(
        svc.ready.network,
        new BatchClient(toClientEvmSigner(payer, chain), { depositPolicy: { depositMultiplier: 10 } }),
      )
      .setSpendControls({ allowedAssets: true }),
  )
  let channelId: Hex | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(url)
    expect(response.status).toBe(200)
    const answer = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    channelId ??= (answer.extra as { channelState: { channelId: Hex } }).channelState.channelId
  }

  // The claim is sent; svc stops once it is mined (its log names the transaction), and is killed there.
  const claiming = manager.claim().catch((error: unknown) => error)
  await vi.waitFor(() => expect(svc.stderr()).toContain('paused at channel-action-claim'), { timeout: 30_000 })
  const [claimed] = await chain.getContractEvents({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    eventName: 'Claimed',
    args: { channelId },
    fromBlock: 0n,
  })
  expect(claimed?.args.totalClaimed).toBe(3_000n)
  await killAt(svc, dataDir, 'channel-action-claim')
  await claiming
  await seller?.close()
  seller = undefined

  const again = await startSvcProcess(['--data-dir', dataDir], process.env, { ephemeral: false })
  running.push(again)
  const onChain = createPublicClient({ transport: http(again.ready.rpc_url) })
  const [, totalClaimed] = await onChain.readContract({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    functionName: 'channels',
    args: [channelId!],
  })
  expect(totalClaimed).toBe(3_000n)
  await again.stop()

  const database = await openDatabase(join(dataDir, 'svc.sqlite'))
  try {
    const actions = await listChannelActions(database.db, { receiver })
    const claim = actions.find((action) => action.kind === 'claim')
    expect(claim).toMatchObject({ state: 'settled', amount: '', transaction: claimed!.transactionHash })
    expect(actions.find((action) => action.kind === 'deposit')).toMatchObject({ state: 'settled', amount: '10000' })
  } finally {
    await database.close()
  }
})
