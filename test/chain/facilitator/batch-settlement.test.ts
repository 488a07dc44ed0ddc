/**
 * x402's `batch-settlement` scheme (payment channels) on svc's facilitator, end to end with the official classes of
 * `@x402/evm` and nothing of svc's in between: an `@x402/express` seller whose resource server runs the package's
 * server scheme (and its channel manager) on svc's facilitator, paid by `@x402/fetch` with the package's client
 * scheme. A channel's whole life (deposit, vouchers, claim, settle, more vouchers, claim and settle again, refund, a
 * second deposit, and a withdrawal after `svc time advance`), with the chain's balances asserted at each step.
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { BatchSettlementEvmScheme as BatchServer } from '@x402/evm/batch-settlement/server'
import { paymentMiddleware } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { createPublicClient, createWalletClient, http, parseEventLogs, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { listen, type Listening } from '../../../core/http.js'
import { signingBySvcClock } from '../../../sdk/svc-clock-signing.js'
import { startSandbox, type TestSandbox } from '../../../sdk/testing.js'
import { getJson, postJson } from '../../helpers/payments.js'

const price = 1_000n
let sandbox: TestSandbox
let seller: Listening
let serverScheme: BatchServer
let facilitator: HTTPFacilitatorClient
const receiver = privateKeyToAccount(generatePrivateKey()).address
const payer = privateKeyToAccount(generatePrivateKey())

beforeAll(async () => {
  sandbox = await startSandbox()
  facilitator = new HTTPFacilitatorClient({ url: sandbox.facilitatorUrl })
  serverScheme = new BatchServer(receiver, { withdrawDelay: 900 })
  const resourceServer = new x402ResourceServer(facilitator).register(sandbox.network as never, serverScheme)
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /data': {
          accepts: {
            scheme: 'batch-settlement',
            network: sandbox.network as never,
            payTo: receiver,
            price: {
              amount: price.toString(),
              asset: sandbox.usdc.address,
              extra: { name: sandbox.usdc.name, version: sandbox.usdc.version },
            },
          },
        },
      },
      resourceServer,
    ),
  )
  app.get('/data', (_req, res) => void res.json({ data: 'paid' }))
  seller = await listen(app)
  expect((await postJson(`${sandbox.chainManagerUrl}/faucet`, { address: payer.address })).status).toBe(200)
})

afterAll(async () => {
  await seller?.close()
  await sandbox?.stop()
})

const client = () => createPublicClient({ transport: http(sandbox.rpcUrl) })
const usdcOf = (address: Address) =>
  client().readContract({
    address: sandbox.usdc.address as Address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })
const channelOf = async (id: Hex) => {
  const [balance, totalClaimed] = await client().readContract({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    functionName: 'channels',
    args: [id],
  })
  return { balance, totalClaimed }
}

describe('batch-settlement on svc’s facilitator', () => {
  test('/supported lists it with the install’s receiver authorizer', async () => {
    const supported = await getJson(`${sandbox.facilitatorUrl}/supported`)
    const kind = (
      supported.body as { kinds: { scheme: string; network: string; extra?: Record<string, string> }[] }
    ).kinds.find((k) => k.scheme === 'batch-settlement' && k.network === sandbox.network)
    expect(kind?.extra?.receiverAuthorizer).toMatch(/^0x[0-9a-fA-F]{40}$/)
  })

  test('a channel’s life: deposit, vouchers, claim, settle (twice), refund, and a withdrawal after svc time advance', async () => {
    // With a public client, so it can read its channel back from the chain after the refund.
    const signer = toClientEvmSigner(payer, client())
    const buyerScheme = new BatchClient(signer, { depositPolicy: { depositMultiplier: 10 } })
    const pay = wrapFetchWithPayment(
      fetch,
      new x402Client().register(sandbox.network as never, buyerScheme).setSpendControls({ allowedAssets: true }),
    )
    const url = `${seller.url}/data`
    const startUsdc = await usdcOf(payer.address)

    // The first request deposits ten prices and pays one; the next two are vouchers only.
    const responses = []
    for (let i = 0; i < 3; i++) {
      const response = await pay(url)
      expect(response.status).toBe(200)
      responses.push(decodePaymentResponseHeader(response.headers.get('payment-response')!))
    }
    expect(responses[0]!.transaction).toMatch(/^0x/)
    expect(responses[1]!.transaction).toBe('')
    const channelId = (responses[0]!.extra as { channelState: { channelId: Hex } }).channelState.channelId
    expect(await channelOf(channelId)).toEqual({ balance: 10n * price, totalClaimed: 0n })
    expect(await usdcOf(payer.address)).toBe(startUsdc - 10n * price)

    // The seller's channel manager claims the three vouchers and settles them to the receiver.
    const manager = serverScheme.createChannelManager(
      facilitator,
      sandbox.network as never,
      sandbox.usdc.address as Address,
    )
    const claimed = await manager.claim()
    expect(claimed.length).toBe(1)
    expect(await channelOf(channelId)).toEqual({ balance: 10n * price, totalClaimed: 3n * price })
    await manager.settle()
    expect(await usdcOf(receiver)).toBe(3n * price)

    // Two more requests, claimed and settled again: the same `{type: "settle"}` is a new action, not a cached answer.
    for (let i = 0; i < 2; i++) expect((await pay(url)).status).toBe(200)
    await manager.claim()
    const second = await manager.settle()
    expect(second.transaction).toMatch(/^0x/)
    expect(await usdcOf(receiver)).toBe(5n * price)
    expect(await channelOf(channelId)).toEqual({ balance: 10n * price, totalClaimed: 5n * price })

    // The buyer asks for the rest back: the refund never reaches the route, the unspent 5 prices go home.
    const refund = await buyerScheme.refund(url)
    expect(refund.success).toBe(true)
    expect(await usdcOf(payer.address)).toBe(startUsdc - 5n * price)
    expect(await channelOf(channelId)).toEqual({ balance: 5n * price, totalClaimed: 5n * price })

    // A second deposit, then the buyer leaves without asking: its withdrawal waits for the channel's 900 s.
    expect((await pay(url)).status).toBe(200)
    const config = await channelConfigOf(responses[0]!.transaction as Hex)
    const wallet = createWalletClient({ account: payer, transport: http(sandbox.rpcUrl) })
    const call = (functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]) =>
      client().simulateContract({
        account: payer,
        address: batchSettlementAddresses.settlement,
        abi: x402BatchSettlementAbi,
        functionName,
        args: args as never,
      })
    const available = (await channelOf(channelId)).balance - (await channelOf(channelId)).totalClaimed
    const initiate = await call('initiateWithdraw', [config, available])
    await client().waitForTransactionReceipt({ hash: await wallet.writeContract({ ...initiate.request, chain: null }) })
    await expect(call('finalizeWithdraw', [config])).rejects.toThrow(/WithdrawDelayNotElapsed/)
    await sandbox.advanceTime(900)
    const before = await usdcOf(payer.address)
    const finalize = await call('finalizeWithdraw', [config])
    await client().waitForTransactionReceipt({ hash: await wallet.writeContract({ ...finalize.request, chain: null }) })
    expect(await usdcOf(payer.address)).toBe(before + available)
  })

  test('after svc time advance, a deposit signed by the machine’s clock is refused by svc’s, one signed by svc’s is not', async () => {
    const { offset_seconds: ahead } = await sandbox.time()
    expect(ahead).toBeGreaterThanOrEqual(900)
    const newcomer = privateKeyToAccount(generatePrivateKey())
    expect((await postJson(`${sandbox.chainManagerUrl}/faucet`, { address: newcomer.address })).status).toBe(200)
    const scheme = new BatchClient(toClientEvmSigner(newcomer, client()), { depositPolicy: { depositMultiplier: 10 } })
    const buyer = (signing: typeof scheme | ReturnType<typeof signingBySvcClock>) =>
      wrapFetchWithPayment(
        fetch,
        new x402Client().register(sandbox.network as never, signing).setSpendControls({ allowedAssets: true }),
      )
    const url = `${seller.url}/data`
    const refused = await buyer(scheme)(url)
    expect(refused.status).toBe(402)
    const required = decodePaymentRequiredHeader(refused.headers.get('payment-required')!)
    expect(required.error).toMatch(/invalid_batch_settlement_evm_payload_authorization_valid_before/)
    expect(await usdcOf(newcomer.address)).toBeGreaterThan(0n)
    const before = await usdcOf(newcomer.address)
    expect((await buyer(signingBySvcClock(scheme, () => ahead))(url)).status).toBe(200)
    expect(await usdcOf(newcomer.address)).toBe(before - 10n * price)
  })
})

/** The channel's config, as the contract logged it when the deposit created the channel. */
async function channelConfigOf(depositTransaction: Hex) {
  const receipt = await client().getTransactionReceipt({ hash: depositTransaction })
  const [created] = parseEventLogs({ abi: x402BatchSettlementAbi, eventName: 'ChannelCreated', logs: receipt.logs })
  return created!.args.config
}
