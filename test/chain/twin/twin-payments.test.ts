/**
 * The Base Sepolia twin, end to end with unchanged official code: a v2 `@x402/express` seller with "$0.001" prices on
 * eip155:84532 paid by `@x402/fetch` (exact EIP-3009, exact Permit2, upto), and a v1 `x402-express` 1.2.0 seller on
 * `base-sepolia` paid by `x402-fetch` 1.2.0; each seller's facilitator is svc's, nothing else changed.
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmServerScheme } from '@x402/evm/exact/server'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { UptoEvmScheme as UptoEvmServerScheme } from '@x402/evm/upto/server'
import { paymentMiddleware, setSettlementOverrides } from '@x402/express'
import { wrapFetchWithPayment } from '@x402/fetch'
import express from 'express'
import { generatePrivateKey } from 'viem/accounts'
import { privateKeyToAccount } from 'viem/accounts'
import { paymentMiddleware as paymentMiddlewareV1 } from 'x402-express'
import { createSigner, decodeXPaymentResponse, wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import type { Address } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { listen, type Listening } from '../../../core/http.js'
import { getJson, postJson } from '../../helpers/payments.js'

const baseSepoliaUsdc = '0x036CbD53842c5426634e7929541eC2318f3dCF7e'
let services: ChainServices
let sellerV2: Listening
let sellerV1: Listening
const payTo = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  services = await startChainServices({ twins: ['base-sepolia'] })
  const facilitator = { url: services.facilitatorUrl as `http://${string}` }
  // As @x402/express's README has it, but for the facilitator URL.
  const resourceServer = new x402ResourceServer(new HTTPFacilitatorClient(facilitator))
    .register('eip155:84532', new ExactEvmServerScheme())
    .register('eip155:84532', new UptoEvmServerScheme())
  const v2 = express()
  v2.use(
    paymentMiddleware(
      {
        'GET /weather': { accepts: { scheme: 'exact', price: '$0.001', network: 'eip155:84532', payTo } },
        'GET /permit2': {
          accepts: {
            scheme: 'exact',
            network: 'eip155:84532',
            payTo,
            price: {
              amount: '2000',
              asset: baseSepoliaUsdc,
              extra: { assetTransferMethod: 'permit2', name: 'USDC', version: '2' },
            },
          },
        },
        'GET /metered': { accepts: { scheme: 'upto', price: '$0.01', network: 'eip155:84532', payTo } },
      },
      resourceServer,
    ),
  )
  v2.get('/weather', (_req, res) => void res.json({ weather: 'sunny' }))
  v2.get('/permit2', (_req, res) => void res.json({ paid: 'permit2' }))
  v2.get('/metered', (_req, res) => {
    setSettlementOverrides(res, { amount: '3000' })
    res.json({ used: 3000 })
  })
  sellerV2 = await listen(v2)
  // As x402-express 1.2.0's README has it, but for the facilitator URL.
  const v1 = express()
  v1.use(paymentMiddlewareV1(payTo, { '/weather': { price: '$0.001', network: 'base-sepolia' } }, facilitator))
  v1.get('/weather', (_req, res) => void res.json({ weather: 'sunny' }))
  sellerV1 = await listen(v1)
})
afterAll(async () => {
  await sellerV1?.close()
  await sellerV2?.close()
  await services?.stop()
})

const twin = () => services.twins[0]!.chain
const usdcOf = (address: Address) =>
  twin().client.readContract({
    address: baseSepoliaUsdc,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })

/** A buyer's key, funded on the twin through the chain manager's faucet (`network`). */
async function fundedKey(options: { approvePermit2?: boolean } = {}) {
  const key = generatePrivateKey()
  const { address } = privateKeyToAccount(key)
  const { status, body } = await postJson(`${services.chainManagerUrl}/faucet`, {
    address,
    network: 'eip155:84532',
    ...(options.approvePermit2 ? { approve_permit2: true } : {}),
  })
  expect(status).toBe(200)
  return { key, address, funded: body }
}

describe('the Base Sepolia twin', () => {
  test('has chain id 84532 and USDC at Base Sepolia\'s address with its EIP-712 name "USDC" and version "2"', async () => {
    expect(await twin().client.getChainId()).toBe(84532)
    expect(twin().usdc).toMatchObject({ address: baseSepoliaUsdc, name: 'USDC', version: '2', decimals: 6 })
    expect(services.twins[0]!.describe()).toMatchObject({
      name: 'base-sepolia',
      network: 'eip155:84532',
      chain_id: 84532,
    })
  })

  test('the faucet funds on the twin when asked for its network, and only there', async () => {
    const { address } = await fundedKey()
    expect(await usdcOf(address)).toBe(1_000_000_000n)
    const onSandbox = await services.manager.balances(address)
    expect(BigInt(onSandbox.usdc_base)).toBe(0n)
    const refused = await postJson(`${services.chainManagerUrl}/faucet`, { address, network: 'eip155:1' })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatch(/eip155:1.*eip155:84532/)
  })

  test('/supported lists v2 exact, upto and auth-capture on eip155:84532 and v1 exact on base-sepolia', async () => {
    const { body } = await getJson(`${services.facilitatorUrl}/supported`)
    const kinds = body.kinds.map(
      (kind: { x402Version: number; scheme: string; network: string }) =>
        `${kind.x402Version} ${kind.scheme} ${kind.network}`,
    )
    expect(kinds).toEqual(
      expect.arrayContaining([
        '2 exact eip155:845320402',
        '2 exact eip155:84532',
        '2 upto eip155:84532',
        '2 auth-capture eip155:84532',
        '1 exact base-sepolia',
      ]),
    )
  })
})

describe('v2 on eip155:84532 (@x402/fetch → @x402/express → svc facilitator)', () => {
  const buyer = async (options: { approvePermit2?: boolean } = {}) => {
    const { key, address } = await fundedKey(options)
    const account = privateKeyToAccount(key)
    const client = new x402Client()
      .register('eip155:84532', new ExactEvmScheme(account))
      .register('eip155:84532', new UptoEvmScheme(account))
    return { address, pay: wrapFetchWithPayment(fetch, client) }
  }

  test('"$0.001" exact (EIP-3009) pays 1000 base units of the twin\'s USDC', async () => {
    const { address, pay } = await buyer()
    const response = await pay(`${sellerV2.url}/weather`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ weather: 'sunny' })
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532', payer: address })
    const receipt = await twin().client.getTransactionReceipt({ hash: settled.transaction as `0x${string}` })
    expect(receipt.status).toBe('success')
    expect(await usdcOf(address)).toBe(1_000_000_000n - 1000n)
  })

  test('exact through Permit2 and upto settle on the twin', async () => {
    const { address, pay } = await buyer({ approvePermit2: true })
    const before = await usdcOf(payTo)
    expect((await pay(`${sellerV2.url}/permit2`)).status).toBe(200)
    const metered = await pay(`${sellerV2.url}/metered`)
    expect(metered.status).toBe(200)
    expect(decodePaymentResponseHeader(metered.headers.get('payment-response')!)).toMatchObject({ success: true })
    expect(await usdcOf(payTo)).toBe(before + 2000n + 3000n)
    expect(await usdcOf(address)).toBe(1_000_000_000n - 5000n)
  })
})

describe('v1 on base-sepolia (x402-fetch 1.2.0 → x402-express 1.2.0 → svc facilitator)', () => {
  test('"$0.001" pays through @x402/evm\'s v1 exact scheme', async () => {
    const { key, address } = await fundedKey()
    const signer = await createSigner('base-sepolia', key)
    const pay = wrapFetchV1(fetch, signer)
    const response = await pay(`${sellerV1.url}/weather`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ weather: 'sunny' })
    const settled = decodeXPaymentResponse(response.headers.get('x-payment-response')!)
    expect(settled).toMatchObject({ success: true, network: 'base-sepolia', payer: address })
    expect(await usdcOf(address)).toBe(1_000_000_000n - 1000n)
  })
})
