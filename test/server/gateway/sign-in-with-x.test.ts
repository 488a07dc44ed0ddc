import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { x402Client, x402HTTPClient } from '@x402/core/client'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import {
  createSIWxClientExtension,
  createSIWxPayload,
  encodeSIWxHeader,
  wrapFetchWithSIWx,
  type CompleteSIWxInfo,
  type SIWxExtension,
} from '@x402/extensions/sign-in-with-x'
import { extractReceiptFromResponse, verifyReceiptSignatureJWS } from '@x402/extensions/offer-receipt'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startSandbox, type TestSandbox } from '../../../sdk/testing.js'
import { paymentRequiredMessage } from '../../../server/payments/offer.js'
import { createSellerApi, serverUrl } from '../../helpers/seller-api.js'

// Issue 22 item 4: x402's sign-in-with-x through svc's gateway, with the package's own client helpers. A wallet that
// paid for an endpoint signs in instead of paying again within the endpoint's access window; every bad sign-in is a
// 402 with the extension's reason, charges nothing and never reaches the upstream.
let sandbox: TestSandbox
let upstream: Server
let upstreamCalls = 0
let url: string
let plainUrl: string
let apiId: string

const accessSeconds = 60

beforeAll(async () => {
  upstream = createServer((req, res) => {
    upstreamCalls++
    res.setHeader('content-type', 'application/json').end(JSON.stringify({ path: req.url }))
  })
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  sandbox = await startSandbox()
  const { api, endpoints, gatewayUrl } = await createSellerApi(sandbox, {
    slug: 'members',
    name: 'Members',
    upstreamUrl: serverUrl(upstream),
    endpoints: [{ path_pattern: '/report', siwx: { access_seconds: accessSeconds } }, { path_pattern: '/plain' }],
  })
  apiId = api.id
  expect(endpoints[0]!.siwx).toEqual({ access_seconds: accessSeconds })
  url = `${gatewayUrl}/report`
  plainUrl = `${gatewayUrl}/plain`
})

afterAll(async () => {
  await sandbox?.stop()
  upstream?.close()
})

/** The official buyer: x402Client with the exact scheme and the SIWX client extension, as the package's README has it. */
function siwxBuyer(privateKey: `0x${string}`) {
  const signer = privateKeyToAccount(privateKey)
  const network = sandbox.network as `${string}:${string}`
  const client = new x402Client().register(network, new ExactEvmScheme(signer))
  client.setSpendControls({
    allowedAssets: [{ network, asset: sandbox.usdc.address, maxAmountPerPayment: '10000000' }],
  })
  client.registerExtension(createSIWxClientExtension({ signers: [signer] }))
  const httpClient = new x402HTTPClient(client)
  return { signer, fetch: wrapFetchWithPayment(sandbox.fetch, httpClient) }
}

const settlementCount = async () => (await sandbox.seller.client.settlements.list({ api_id: apiId })).settlements.length

async function challenge(target = url): Promise<{ required: PaymentRequired; siwx: SIWxExtension }> {
  const probe = await sandbox.fetch(target)
  expect(probe.status).toBe(402)
  const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
  return { required, siwx: required.extensions?.['sign-in-with-x'] as SIWxExtension }
}

/** A SIGN-IN-WITH-X header made by the package's createSIWxPayload from the 402's challenge, changed by `change`. */
async function signInHeader(
  signer: ReturnType<typeof privateKeyToAccount>,
  change: (info: CompleteSIWxInfo) => CompleteSIWxInfo = (info) => info,
  requestUrl = url,
): Promise<string> {
  const { siwx } = await challenge()
  const info = change({ ...siwx.info, chainId: siwx.supportedChains[0]!.chainId, type: 'eip191' })
  return encodeSIWxHeader(await createSIWxPayload(info, signer, requestUrl))
}

const errorOf = async (response: Response) => ((await response.json()) as { error: string }).error

describe('sign-in-with-x on an endpoint with an access window', () => {
  test('its 402 declares a fresh challenge bound to the gateway host, on the endpoint’s network', async () => {
    const first = await challenge()
    const second = await challenge()
    const host = new URL(url).host
    expect(first.siwx.info).toMatchObject({ domain: host, uri: url, version: '1', resources: [url] })
    expect(first.siwx.info.nonce).toMatch(/^[0-9a-f]{32}$/)
    expect(second.siwx.info.nonce).not.toBe(first.siwx.info.nonce)
    const issued = Date.parse(first.siwx.info.issuedAt)
    expect(Date.parse(first.siwx.info.expirationTime!) - issued).toBe(300_000)
    expect(first.siwx.supportedChains).toEqual([{ chainId: 'eip155:845320402', type: 'eip191' }])
    expect((await challenge(plainUrl)).siwx).toBeUndefined()
  })

  test('pay once, then sign in and be served free within the window; after time travel past it, pay again', async () => {
    const buyer = siwxBuyer(sandbox.buyer.privateKey)
    const settledBefore = await settlementCount()
    const callsBefore = upstreamCalls

    // No payment yet: the client's sign-in is refused (402), so it pays.
    const paid = await buyer.fetch(url)
    expect(paid.status).toBe(200)
    expect(await paid.json()).toEqual({ path: '/report' })
    const settlement = decodePaymentResponseHeader(paid.headers.get('payment-response')!)
    expect(settlement.success).toBe(true)
    expect(await settlementCount()).toBe(settledBefore + 1)

    // Within the window: signed in, served, nothing settled.
    const signedIn = await buyer.fetch(url)
    expect(signedIn.status).toBe(200)
    expect(await signedIn.json()).toEqual({ path: '/report' })
    expect(signedIn.headers.get('payment-response')).toBeNull()
    const viaWrapper = await wrapFetchWithSIWx(sandbox.fetch, buyer.signer)(url)
    expect(viaWrapper.status).toBe(200)
    expect(await settlementCount()).toBe(settledBefore + 1)
    expect(upstreamCalls).toBe(callsBefore + 3)

    // Past the window (svc's clock): the sign-in is refused, and the client pays again.
    await sandbox.advanceTime(accessSeconds + 30)
    const refused = await sandbox.fetch(url, { headers: { 'sign-in-with-x': await signInHeader(buyer.signer) } })
    expect(refused.status).toBe(402)
    expect(await errorOf(refused)).toMatch(/has no payment for this endpoint in the last 60 seconds/)
    const paidAgain = await buyer.fetch(url)
    expect(paidAgain.status).toBe(200)
    expect(decodePaymentResponseHeader(paidAgain.headers.get('payment-response')!).success).toBe(true)
    expect(await settlementCount()).toBe(settledBefore + 2)

    // The receipt of a paid answer is signed by the gateway and verifies with the package's own function.
    const receipt = extractReceiptFromResponse(paidAgain)!
    const payload = await verifyReceiptSignatureJWS(receipt as Parameters<typeof verifyReceiptSignatureJWS>[0])
    expect(payload).toMatchObject({ resourceUrl: url, network: sandbox.network, payer: buyer.signer.address })
  })

  test('bad sign-ins: each a 402 with the extension’s reason, nothing charged, the upstream not called', async () => {
    const payer = privateKeyToAccount(sandbox.buyer.privateKey)
    // The buyer paid in the last test, then time moved on: pay once more so a good signature would be let in.
    expect((await siwxBuyer(sandbox.buyer.privateKey).fetch(url)).status).toBe(200)
    const settled = await settlementCount()
    const calls = upstreamCalls
    const stranger = privateKeyToAccount(generatePrivateKey())
    const expired = (info: CompleteSIWxInfo) => ({
      ...info,
      issuedAt: new Date(Date.now() - 60_000).toISOString(),
      expirationTime: new Date(Date.now() - 1000).toISOString(),
    })
    const cases: [string, string, RegExp][] = [
      ['not a header', 'not base64!', /invalid_siwx_header/],
      [
        'a bad signature',
        await signInHeader(payer).then((header) => {
          const decoded = JSON.parse(Buffer.from(header, 'base64').toString()) as { signature: string }
          decoded.signature = `${decoded.signature.slice(0, 10)}${decoded.signature[10] === 'a' ? 'b' : 'a'}${decoded.signature.slice(11)}`
          return Buffer.from(JSON.stringify(decoded)).toString('base64')
        }),
        /invalid_siwx_signature/,
      ],
      [
        'another domain',
        await signInHeader(
          payer,
          (info) => ({ ...info, domain: 'evil.example', uri: 'https://evil.example/report' }),
          'https://evil.example/report',
        ),
        /invalid_siwx_domain_mismatch/,
      ],
      [
        'another chain',
        await signInHeader(payer, (info) => ({ ...info, chainId: 'eip155:1' })),
        /invalid_siwx_unsupported_chain/,
      ],
      ['an expired message', await signInHeader(payer, expired), /invalid_siwx_expired/],
      ['a wallet that never paid', await signInHeader(stranger), /has no payment for this endpoint/],
      [
        'an address that is none',
        await signInHeader(payer).then((header) => {
          const decoded = JSON.parse(Buffer.from(header, 'base64').toString()) as { address: string; nonce: string }
          decoded.address = 'not-an-address'
          decoded.nonce = '!!'
          return Buffer.from(JSON.stringify(decoded)).toString('base64')
        }),
        /invalid_siwx_malformed_signature/,
      ],
    ]
    for (const [what, header, reason] of cases) {
      const response = await sandbox.fetch(url, { headers: { 'sign-in-with-x': header } })
      expect(response.status, what).toBe(402)
      expect(await errorOf(response), what).toMatch(reason)
      // Still a valid PaymentRequired with a fresh challenge, so the official client can pay instead.
      expect(decodePaymentRequiredHeader(response.headers.get('payment-required')!).extensions, what).toHaveProperty(
        'sign-in-with-x',
      )
    }

    // A good sign-in is served once: its nonce replayed is refused.
    const good = await signInHeader(payer)
    expect((await sandbox.fetch(url, { headers: { 'sign-in-with-x': good } })).status).toBe(200)
    const replayed = await sandbox.fetch(url, { headers: { 'sign-in-with-x': good } })
    expect(replayed.status).toBe(402)
    expect(await errorOf(replayed)).toMatch(/invalid_siwx_nonce/)

    // On an endpoint without sign-in-with-x the header is ignored: a plain 402.
    const plain = await sandbox.fetch(plainUrl, { headers: { 'sign-in-with-x': good } })
    expect(plain.status).toBe(402)
    expect(await errorOf(plain)).toBe(paymentRequiredMessage)

    expect(await settlementCount()).toBe(settled)
    expect(upstreamCalls).toBe(calls + 1)
  })

  test('the control plane sets, shows and clears the access window, and refuses a bad one', async () => {
    const { client } = sandbox.seller
    const endpoint = await client.endpoints.create(apiId, {
      method: 'GET',
      path_pattern: '/window',
      accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
    })
    expect(endpoint.siwx).toBeNull()
    expect((await client.endpoints.update(apiId, endpoint.id, { siwx: { access_seconds: 3600 } })).siwx).toEqual({
      access_seconds: 3600,
    })
    expect((await client.endpoints.update(apiId, endpoint.id, { siwx: null })).siwx).toBeNull()
    await expect(client.endpoints.update(apiId, endpoint.id, { siwx: { access_seconds: 0 } })).rejects.toThrow(
      /access_seconds: between 1 and 31536000 seconds/,
    )
  })
})
