/**
 * Exact via Permit2 and upto, end to end with the official pieces only: an `@x402/express` seller whose
 * `x402ResourceServer` uses svc's facilitator over HTTP, buyers paying with `x402Client` + `@x402/evm`'s exact and
 * upto client schemes through `wrapFetchWithPayment`, on svc's chain with its Permit2 contracts.
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { PERMIT2_ADDRESS } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { UptoEvmScheme as UptoEvmServerScheme } from '@x402/evm/upto/server'
import { paymentMiddleware, setSettlementOverrides } from '@x402/express'
import { declareEip2612GasSponsoringExtension } from '@x402/extensions'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { maxUint256, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { listen, type Listening } from '../../../core/http.js'
import { getJson, newAccount } from '../../helpers/payments.js'

let services: ChainServices
let seller: Listening
const payTo = newAccount().address

beforeAll(async () => {
  services = await startChainServices()
  const { network, usdc } = services.sandboxChain
  const price = (amount: string) => ({
    amount,
    asset: usdc.address,
    extra: { name: usdc.name, version: usdc.version, assetTransferMethod: 'permit2' },
  })
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient({ url: services.facilitatorUrl }))
    .register(network, new ExactEvmServerScheme())
    .register(network, new UptoEvmServerScheme())
  const app = express()
  app.use(
    paymentMiddleware(
      {
        'GET /permit2': { accepts: { scheme: 'exact', network, payTo, price: price('10000'), maxTimeoutSeconds: 300 } },
        'GET /sponsored': {
          accepts: { scheme: 'exact', network, payTo, price: price('20000'), maxTimeoutSeconds: 300 },
          extensions: declareEip2612GasSponsoringExtension(),
        },
        'GET /metered': { accepts: { scheme: 'upto', network, payTo, price: price('100000'), maxTimeoutSeconds: 300 } },
        'GET /metered-sponsored': {
          accepts: { scheme: 'upto', network, payTo, price: price('100000'), maxTimeoutSeconds: 300 },
          extensions: declareEip2612GasSponsoringExtension(),
        },
      },
      resourceServer,
    ),
  )
  app.get('/permit2', (_req, res) => void res.json({ paid: 'permit2' }))
  app.get('/sponsored', (_req, res) => void res.json({ paid: 'sponsored' }))
  // The seller meters the request and settles what was used, through the Settlement-Overrides header.
  const metered: express.RequestHandler = (req, res) => {
    setSettlementOverrides(res, { amount: String(req.query.used) })
    res.json({ used: req.query.used })
  }
  app.get('/metered', metered)
  app.get('/metered-sponsored', metered)
  seller = await listen(app)
})
afterAll(async () => {
  await seller?.close()
  await services?.stop()
})

const usdcBalance = (address: Address) =>
  services.sandboxChain.client.readContract({
    address: services.sandboxChain.usdc.address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })

/**
 * A buyer with 10 USDC and no ETH, paying with the official client: exact and upto, both over Permit2 when asked.
 * `approved`: the faucet also approved Permit2 for it.
 */
async function newBuyer(options: { approved?: boolean } = {}) {
  const account = newAccount()
  const funded = await services.manager.fund(account.address, 'usdc', '10', { approvePermit2: options.approved })
  if (options.approved) expect(funded.transactions.permit2_approval).toMatch(/^0x[0-9a-f]{64}$/)
  const { network, usdc } = services.sandboxChain
  // rpcUrl lets the exact and upto schemes read the Permit2 allowance and sign an EIP-2612 permit when a seller sponsors it.
  const client = new x402Client()
    .register(network, new ExactEvmScheme(account, { rpcUrl: services.rpcUrl }))
    .register(network, new UptoEvmScheme(account, { rpcUrl: services.rpcUrl }))
  client.setSpendControls({ allowedAssets: [{ network, asset: usdc.address, maxAmountPerPayment: '1000000' }] })
  const sent: string[] = []
  const recordingFetch = (async (input: string | URL | Request, init?: RequestInit) => {
    const signature = new Request(input, init).headers.get('payment-signature')
    if (signature) sent.push(signature)
    return fetch(input, init)
  }) as typeof fetch
  return { account, pay: wrapFetchWithPayment(recordingFetch, client), sent }
}

const settlementOf = (response: Response) => decodePaymentResponseHeader(response.headers.get('payment-response')!)
const refusalOf = (response: Response) => decodePaymentRequiredHeader(response.headers.get('payment-required')!)

describe('svc facilitator /supported', () => {
  test('offers exact, upto, batch-settlement and auth-capture on the sandbox network, upto naming its facilitator, and both gas sponsoring extensions', async () => {
    const { body } = await getJson(`${services.facilitatorUrl}/supported`)
    expect(body.kinds).toEqual([
      { x402Version: 2, scheme: 'exact', network: 'eip155:845320402' },
      {
        x402Version: 2,
        scheme: 'upto',
        network: 'eip155:845320402',
        extra: { facilitatorAddress: expect.any(String) },
      },
      {
        x402Version: 2,
        scheme: 'batch-settlement',
        network: 'eip155:845320402',
        extra: { receiverAuthorizer: services.facilitator.receiverAuthorizer },
      },
      {
        x402Version: 2,
        scheme: 'auth-capture',
        network: 'eip155:845320402',
        extra: { captureAuthorizer: services.facilitator.operator, authCaptureEscrow: expect.any(String) },
      },
    ])
    // One of the relayer pool: the one an upto payment's settlement is then sent from.
    expect(services.sandboxChain.accounts.relayers.map((account) => account.address)).toContain(
      body.kinds[1].extra.facilitatorAddress,
    )
    expect(body.extensions).toEqual(['eip2612GasSponsoring', 'bazaar', 'erc20ApprovalGasSponsoring'])
  })
})

describe('exact via Permit2', () => {
  test('a buyer the faucet approved Permit2 for pays; the seller is paid the price', async () => {
    const buyer = await newBuyer({ approved: true })
    const allowance = await services.sandboxChain.client.readContract({
      address: services.sandboxChain.usdc.address,
      abi: sandboxUsdcAbi,
      functionName: 'allowance',
      args: [buyer.account.address, PERMIT2_ADDRESS],
    })
    expect(allowance).toBe(maxUint256)
    const before = await usdcBalance(payTo)
    const response = await buyer.pay(`${seller.url}/permit2`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ paid: 'permit2' })
    const settled = settlementOf(response)
    expect(settled).toMatchObject({ success: true, payer: buyer.account.address, network: 'eip155:845320402' })
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await usdcBalance(payTo)).toBe(before + 10_000n)

    // Settling the same payment again answers the first transaction and sends nothing (idempotent settle).
    const payload = JSON.parse(Buffer.from(buyer.sent[0]!, 'base64').toString())
    expect(await services.facilitator.settle(payload, payload.accepted)).toMatchObject({
      success: true,
      transaction: settled.transaction,
    })
    expect(await usdcBalance(payTo)).toBe(before + 10_000n)
  })

  test('a buyer without approval and without gas pays where the seller sponsors the EIP-2612 permit', async () => {
    const buyer = await newBuyer()
    const before = await usdcBalance(payTo)
    const response = await buyer.pay(`${seller.url}/sponsored`)
    expect(response.status).toBe(200)
    const payload = JSON.parse(Buffer.from(buyer.sent[0]!, 'base64').toString())
    expect(payload.extensions.eip2612GasSponsoring.info).toMatchObject({
      from: buyer.account.address,
      spender: PERMIT2_ADDRESS,
      amount: '20000',
    })
    expect(settlementOf(response)).toMatchObject({ success: true, payer: buyer.account.address })
    expect(await usdcBalance(payTo)).toBe(before + 20_000n)
    expect(await services.sandboxChain.client.getTransactionCount({ address: buyer.account.address })).toBe(0)
    expect(await services.sandboxChain.client.getBalance({ address: buyer.account.address })).toBe(0n)
  })

  test('a buyer without approval where nothing sponsors it is refused with permit2_allowance_required (x402 answers 412)', async () => {
    const buyer = await newBuyer()
    const response = await buyer.pay(`${seller.url}/permit2`)
    expect(response.status).toBe(412)
    expect(refusalOf(response).error).toBe('permit2_allowance_required')
    expect(await usdcBalance(buyer.account.address)).toBe(10_000_000n)
  })

  test('a replayed Permit2 payment is refused: Permit2 spent its nonce', async () => {
    const buyer = await newBuyer({ approved: true })
    expect((await buyer.pay(`${seller.url}/permit2`)).status).toBe(200)
    const before = await usdcBalance(payTo)
    const replay = await fetch(`${seller.url}/permit2`, { headers: { 'payment-signature': buyer.sent[0]! } })
    expect(replay.status).toBe(402)
    expect(refusalOf(replay).error).toBe('permit2_simulation_failed')
    // svc's facilitator names the cause the package's diagnosis leaves open.
    const payload = JSON.parse(Buffer.from(buyer.sent[0]!, 'base64').toString())
    const verdict = await services.facilitator.verify(payload, payload.accepted)
    expect(verdict).toMatchObject({
      isValid: false,
      invalidReason: 'permit2_simulation_failed',
      payer: buyer.account.address,
    })
    expect(verdict.invalidMessage).toMatch(
      /^Permit2 nonce \d+ of 0x[0-9a-fA-F]{40} was already used: this payment was settled before$/,
    )
    expect(await usdcBalance(payTo)).toBe(before)
  })
})

describe('upto', () => {
  test('the buyer signs the maximum, the seller settles what was used through Settlement-Overrides', async () => {
    const buyer = await newBuyer({ approved: true })
    const before = await usdcBalance(payTo)
    const response = await buyer.pay(`${seller.url}/metered?used=1234`)
    expect(response.status).toBe(200)
    const payload = JSON.parse(Buffer.from(buyer.sent[0]!, 'base64').toString())
    expect(payload.payload.permit2Authorization.permitted.amount).toBe('100000')
    expect(settlementOf(response)).toMatchObject({ success: true, payer: buyer.account.address, amount: '1234' })
    expect(await usdcBalance(payTo)).toBe(before + 1234n)
    expect(await usdcBalance(buyer.account.address)).toBe(10_000_000n - 1234n)
  })

  test('nothing used settles zero: success without a transaction', async () => {
    const buyer = await newBuyer({ approved: true })
    const before = await usdcBalance(payTo)
    const response = await buyer.pay(`${seller.url}/metered?used=0`)
    expect(response.status).toBe(200)
    expect(settlementOf(response)).toMatchObject({ success: true, transaction: '', amount: '0' })
    expect(await usdcBalance(payTo)).toBe(before)
  })

  test('without approval: paid with a sponsored EIP-2612 permit, else refused with permit2_allowance_required', async () => {
    const buyer = await newBuyer()
    const refused = await buyer.pay(`${seller.url}/metered?used=500`)
    expect(refused.status).toBe(412)
    expect(refusalOf(refused).error).toBe('permit2_allowance_required')

    const before = await usdcBalance(payTo)
    const response = await buyer.pay(`${seller.url}/metered-sponsored?used=500`)
    expect(response.status).toBe(200)
    expect(settlementOf(response)).toMatchObject({ success: true, amount: '500' })
    expect(await usdcBalance(payTo)).toBe(before + 500n)
  })
})
