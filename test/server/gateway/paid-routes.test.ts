import { request as httpRequest } from 'node:http'
import { localFetch } from '../../../sdk/local-fetch.js'
import { paymentRequiredMessage } from '../../../server/payments/offer.js'
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import type { TestServer } from '../../helpers/control.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  errorOf,
  payingFetch,
  sandboxAccept,
  signedPaymentFor,
  type startUpstream,
  usdcBalance,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let stack: GatewayStack | undefined
let buyer: LocalAccount

beforeAll(async () => {
  ;({ services, t, upstream, buyer } = stack = await startGatewayStack())
})
afterAll(async () => {
  await stack?.stop()
})

const db = () => t.server.database.db
const settlementsOf = (apiId: string) =>
  db().selectFrom('settlements').selectAll().where('api_id', '=', apiId).execute()
const statsOf = (apiId: string) =>
  db().selectFrom('api_daily_stats').selectAll().where('api_id', '=', apiId).executeTakeFirst()

describe('a paid request to a development API', () => {
  test('gets the upstream answer and PAYMENT-RESPONSE; USDC moves on-chain; a settlement and the counters record it', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const endpoint = await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services, '25000')],
    })
    const before = await usdcBalance(services, buyer.address)

    const response = await payingFetch(services, buyer)(`${api.gateway}/weather/Paris?units=metric`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ city: 'Paris', temp: 21.5 })
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, payer: buyer.address, network: 'eip155:845320402' })
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/)

    const receipt = await services.sandboxChain.client.getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    })
    expect(receipt.status).toBe('success')
    expect(await usdcBalance(services, seller.payTo)).toBe(25000n)
    expect(await usdcBalance(services, buyer.address)).toBe(before - 25000n)

    expect(await settlementsOf(api.id)).toEqual([
      expect.objectContaining({
        endpoint_id: endpoint.id,
        user_id: seller.userId,
        environment: 'development',
        network: 'eip155:845320402',
        asset: services.sandboxChain.usdc.address,
        amount: '25000',
        payer: buyer.address,
        pay_to: seller.payTo,
        transaction: settled.transaction,
        method: 'GET',
        path: '/weather/Paris',
      }),
    ])
    // The buyer's probe (402) and the paid request.
    await expect.poll(async () => (await statsOf(api.id))?.paid_requests).toBe(1)
    expect(await statsOf(api.id)).toMatchObject({
      user_id: seller.userId,
      environment: 'development',
      requests: 2,
      payment_required: 1,
      paid_requests: 1,
    })
    expect((await statsOf(api.id))!.day).toBe(new Date().toISOString().slice(0, 10))
  })
})

describe('an unpaid request', () => {
  test('is a 402 with a decodable PAYMENT-REQUIRED: the accepts in camelCase and the Bazaar extension', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const responseSchema = {
      type: 'object',
      properties: { city: { type: 'string' }, temp: { type: 'number' } },
      required: ['city'],
    }
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [{ ...sandboxAccept(services, '10000'), max_timeout_seconds: 120 }],
      description: 'Weather now',
      response_schema: responseSchema,
    })
    const calls = upstream.calls.length
    const url = `${api.gateway}/weather/Oslo?units=metric`
    const response = await localFetch(url)
    expect(response.status).toBe(402)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const required = decodePaymentRequiredHeader(response.headers.get('payment-required')!)
    expect(required).toMatchObject({
      x402Version: 2,
      error: paymentRequiredMessage,
      resource: { url, description: 'Weather now', mimeType: 'application/json' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:845320402',
          asset: services.sandboxChain.usdc.address,
          amount: '10000',
          payTo: seller.payTo,
          maxTimeoutSeconds: 120,
          extra: { name: 'USDC', version: '2', assetTransferMethod: 'eip3009' },
        },
      ],
    })
    const bazaar = required.extensions!.bazaar as any
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' })
    expect(bazaar.info.output).toEqual({ type: 'json', example: { city: 'string', temp: 1 } })
    expect(bazaar.schema.properties.output.properties.example).toMatchObject({
      type: 'object',
      properties: responseSchema.properties,
    })
    expect(await response.json()).toEqual({ ...required, error: paymentRequiredMessage })
    expect(upstream.calls.length).toBe(calls)
  })
})

describe('a payment used twice', () => {
  test('a replay after success is refused, not charged again, and does not reach the upstream', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/weather/Rome`
    const signature = await signedPaymentFor(services, buyer, url)
    const first = await localFetch(url, { headers: { 'payment-signature': signature } })
    expect(first.status).toBe(200)
    await first.arrayBuffer()
    const calls = upstream.calls.length
    const balance = await usdcBalance(services, buyer.address)

    const replay = await localFetch(url, { headers: { 'payment-signature': signature } })
    expect(replay.status).toBe(402)
    expect(await errorOf(replay)).toMatch(/nonce_already_used/)
    expect(replay.headers.get('payment-required')).toBeTruthy()
    expect(upstream.calls.length).toBe(calls)
    expect(await usdcBalance(services, buyer.address)).toBe(balance)
    expect(await usdcBalance(services, seller.payTo)).toBe(10000n)
    expect(await settlementsOf(api.id)).toHaveLength(1)
  })

  test('the same payment sent twice at once is served once and charged once', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/echo/twice',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/echo/twice`
    const signature = await signedPaymentFor(services, buyer, url)
    const calls = upstream.calls.length
    const responses = await Promise.all(
      [0, 1].map(() => localFetch(url, { headers: { 'payment-signature': signature } })),
    )
    expect(responses.map((r) => r.status).sort()).toEqual([200, 402])
    expect(upstream.calls.length).toBe(calls + 1)
    expect(await usdcBalance(services, seller.payTo)).toBe(10000n)
    expect(await settlementsOf(api.id)).toHaveLength(1)
  })
})

describe('forwarding', () => {
  test('streams the request body, keeps the query, sets the upstream Host, and drops payment and hop-by-hop headers', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, `${upstream.url}/echo/`)
    await addEndpoint(t, seller, api.id, {
      method: 'POST',
      path_pattern: '/upload/*',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/upload/a/b?x=1&y=two%20words&x=3`
    const signature = await signedPaymentFor(services, buyer, url, 'POST')

    const { port } = t.server
    const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port,
            method: 'POST',
            path: '/upload/a/b?x=1&y=two%20words&x=3',
            headers: {
              host: new URL(api.gateway).host,
              'content-type': 'text/plain',
              'payment-signature': signature,
              'x-payment': 'v1-junk',
              connection: 'keep-alive, x-drop-me',
              'x-drop-me': 'secret',
              'keep-alive': 'timeout=5',
              'proxy-authorization': 'Basic Zm9vOmJhcg==',
              'x-custom': 'kept',
            },
          },
          (res) => {
            let body = ''
            res.setEncoding('utf8')
            res.on('data', (chunk) => (body += chunk))
            res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
          },
        )
        req.on('error', reject)
        // The second half is sent only once the upstream has the first: a gateway that buffered would never finish.
        req.write('first half;')
        expect
          .poll(() => upstream.live.body)
          .toBe('first half;')
          .then(() => req.end('second half'), reject)
      },
    )
    const { status, headers, body } = await answer
    expect(status).toBe(200)
    expect(headers['x-upstream']).toBe('yes')
    expect(headers['payment-response']).toBeTruthy()
    const echoed = JSON.parse(body)
    expect(echoed).toMatchObject({
      method: 'POST',
      url: '/echo/upload/a/b?x=1&y=two%20words&x=3',
      body: 'first half;second half',
    })
    expect(echoed.chunks).toBeGreaterThanOrEqual(2)
    const forwarded = echoed.headers as Record<string, string>
    expect(forwarded.host).toBe(new URL(upstream.url).host)
    expect(forwarded['x-forwarded-host']).toBe(new URL(api.gateway).host)
    expect(forwarded['x-custom']).toBe('kept')
    for (const name of ['payment-signature', 'x-payment', 'x-drop-me', 'keep-alive', 'proxy-authorization'])
      expect(forwarded[name]).toBeUndefined()
    expect(await usdcBalance(services, seller.payTo)).toBe(10000n)
  })
})
