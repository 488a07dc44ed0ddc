import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { decodePaymentRequiredHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import {
  decodeSignedOffers,
  extractOffersFromPaymentRequired,
  extractReceiptFromResponse,
  findAcceptsObjectFromSignedOffer,
  verifyOfferSignatureJWS,
  verifyReceiptMatchesOffer,
  verifyReceiptSignatureJWS,
  type JWSSignedOffer,
  type JWSSignedReceipt,
} from '@x402/extensions/offer-receipt'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { createOfferReceipts } from '../../../server/payments/offer.js'
import { startSandbox, type TestSandbox } from '../../../sdk/testing.js'
import { createSellerApi, sandboxExact, serverUrl } from '../../helpers/seller-api.js'

// Issue 22 item 4: x402's offer-receipt through svc's gateway. Every 402 carries offers signed with the install's
// key, every paid answer a signed receipt; both verify with the package's own functions and nothing else (the kid is
// a did:key).
let sandbox: TestSandbox
let upstream: Server
let url: string
let shortUrl: string

beforeAll(async () => {
  upstream = createServer((_req, res) => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  sandbox = await startSandbox()
  const accept = sandboxExact(sandbox)
  const { gatewayUrl } = await createSellerApi(sandbox, {
    slug: 'signed',
    name: 'Signed',
    upstreamUrl: serverUrl(upstream),
    endpoints: [
      {
        path_pattern: '/quote',
        accepts: [accept, { ...accept, amount: '20000', extra: { assetTransferMethod: 'permit2' } }],
      },
      { path_pattern: '/short', accepts: [{ ...accept, max_timeout_seconds: 2 }] },
    ],
  })
  url = `${gatewayUrl}/quote`
  shortUrl = `${gatewayUrl}/short`
})

afterAll(async () => {
  await sandbox?.stop()
  upstream?.close()
})

async function paymentRequired(target: string): Promise<PaymentRequired> {
  const probe = await sandbox.fetch(target)
  expect(probe.status).toBe(402)
  return decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
}

describe('offer-receipt', () => {
  test('the 402 has one signed offer per accept, verified by verifyOfferSignatureJWS from its did:key alone', async () => {
    const required = await paymentRequired(url)
    const offers = extractOffersFromPaymentRequired(required)
    expect(offers).toHaveLength(2)
    for (const [index, offer] of offers.entries()) {
      const payload = await verifyOfferSignatureJWS(offer as JWSSignedOffer)
      const accept = required.accepts[index]!
      expect(payload).toMatchObject({
        version: 1,
        resourceUrl: url,
        scheme: accept.scheme,
        network: accept.network,
        asset: accept.asset,
        payTo: accept.payTo,
        amount: accept.amount,
      })
      expect(payload.validUntil).toBeGreaterThan(Date.now() / 1000)
      expect(findAcceptsObjectFromSignedOffer(offer, required.accepts)).toEqual(accept)
    }
    // A signature of another payload is refused by the same function.
    const [first, second] = offers as JWSSignedOffer[]
    const forged = `${first!.signature.split('.').slice(0, 2).join('.')}.${second!.signature.split('.')[2]}`
    await expect(verifyOfferSignatureJWS({ format: 'jws', signature: forged })).rejects.toThrow()
  })

  test('an unpaid 402 reuses its signed offers while they are fresh, and signs them again before they expire', async () => {
    const first = extractOffersFromPaymentRequired(await paymentRequired(url))
    const again = extractOffersFromPaymentRequired(await paymentRequired(url))
    expect(again).toEqual(first)
    // max_timeout_seconds 2: the offers are valid for 2 s and signed again after 1 s.
    const short = decodeSignedOffers(extractOffersFromPaymentRequired(await paymentRequired(shortUrl)))[0]!
    await vi.waitFor(
      async () => {
        const next = decodeSignedOffers(extractOffersFromPaymentRequired(await paymentRequired(shortUrl)))[0]!
        expect(next.validUntil).toBeGreaterThan(short.validUntil)
      },
      { timeout: 5000, interval: 200 },
    )
  })

  test('a paid answer carries a signed receipt that verifies and matches the offer paid', async () => {
    const offer = decodeSignedOffers(extractOffersFromPaymentRequired(await paymentRequired(url)))[0]!
    const paid = await sandbox.buyer.fetch(url)
    expect(paid.status).toBe(200)
    const receipt = extractReceiptFromResponse(paid) as JWSSignedReceipt
    const payload = await verifyReceiptSignatureJWS(receipt)
    expect(payload).toMatchObject({
      version: 1,
      resourceUrl: url,
      network: sandbox.network,
      payer: sandbox.buyer.address,
    })
    expect(payload.transaction).toMatch(/^0x[0-9a-f]{64}$/)
    expect(verifyReceiptMatchesOffer(receipt, offer, [sandbox.buyer.address])).toBe(true)
    // Offer and receipt are signed by the same key.
    const kidOf = (jws: string) =>
      (JSON.parse(Buffer.from(jws.split('.')[0]!, 'base64url').toString()) as { kid: string }).kid
    expect(kidOf(receipt.signature)).toBe(kidOf((offer.signedOffer as JWSSignedOffer).signature))
  })
})

describe('a very long resource URL', () => {
  // Each signed offer repeats the URL, twice encoded: unsigned, the 402 of a 6,000-character query stays readable
  // (a header over 16 KiB is no answer at all to Node's HTTP client).
  test('gets its 402 without offers, and a short one keeps them', async () => {
    const long = await sandbox.fetch(`${url}?q=${'x'.repeat(6000)}`)
    expect(long.status).toBe(402)
    const header = long.headers.get('payment-required') ?? ''
    expect(header.length).toBeLessThan(16 * 1024) // all of a response's headers must fit in Node's 16 KiB
    const required = decodePaymentRequiredHeader(header)
    expect(required.accepts).toHaveLength(2)
    expect(required.extensions?.['offer-receipt']).toBeUndefined()
    const short = await sandbox.fetch(`${url}?q=x`)
    expect(
      extractOffersFromPaymentRequired(decodePaymentRequiredHeader(short.headers.get('payment-required') ?? '')),
    ).toHaveLength(2)
  })
})

describe('createOfferReceipts', () => {
  test('one seed, one did:key; another seed, another', () => {
    const seed = randomBytes(32)
    const kid = createOfferReceipts(seed).kid
    expect(kid).toMatch(/^did:key:z6Mk[1-9A-HJ-NP-Za-km-z]+#z6Mk/)
    expect(createOfferReceipts(Buffer.from(seed)).kid).toBe(kid)
    expect(createOfferReceipts(randomBytes(32)).kid).not.toBe(kid)
  })
})
