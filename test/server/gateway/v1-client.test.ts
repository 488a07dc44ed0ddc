import { createWalletClient, http } from 'viem'
import { baseSepolia } from 'viem/chains'
import { wrapFetchWithPayment as wrapFetchV1 } from 'x402-fetch'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let stack: GatewayStack | undefined

beforeAll(async () => {
  ;({ services, t } = stack = await startGatewayStack())
})
afterAll(async () => {
  await stack?.stop()
})

describe('a v1 client (x402-fetch 1.2.0) at a v2 402', () => {
  test('throws its ZodError on the body, whose error names x402 v2 and the packages that can pay; @x402/fetch pays it', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, stack!.upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services, '10000')],
    })
    const url = `${api.gateway}/weather/Rome`

    // What the v1 client read before it threw: the answer it choked on, as a person debugging sees it (curl, devtools).
    const seen: Response[] = []
    const recording = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
      const response = await localFetch(input, init)
      seen.push(response.clone())
      return response
    }) as typeof fetch
    const wallet = createWalletClient({
      account: newAccount(),
      chain: baseSepolia,
      transport: http('http://127.0.0.1:9'),
    })
    const v1Fetch = wrapFetchV1(recording, wallet as never)

    const thrown = await v1Fetch(url).then(
      () => undefined,
      (error: unknown) => error as Error,
    )
    expect(thrown?.name).toBe('ZodError')
    expect(thrown?.message).toContain('maxAmountRequired')
    expect(seen).toHaveLength(1)
    expect(seen[0]!.status).toBe(402)
    const body = (await seen[0]!.json()) as { x402Version: number; error: string }
    expect(body.x402Version).toBe(2)
    expect(body.error).toContain('x402 v2')
    expect(body.error).toContain('x402-fetch')
    expect(body.error).toContain('@x402/fetch')
    expect(body.error).toContain('@x402/evm')

    // The same answer is still a valid v2 PaymentRequired: the official v2 client pays it.
    const buyer = stack!.buyer
    const paid = await payingFetch(services, buyer)(url)
    expect(paid.status).toBe(200)
    expect(await paid.json()).toEqual({ city: 'Rome', temp: 21.5 })
  })

  test('a v1 payment (X-PAYMENT, or x402Version 1 in PAYMENT-SIGNATURE) gets a 402 naming the twin for v1 code', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, stack!.upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services, '10000')],
    })
    const url = `${api.gateway}/weather/Oslo`
    const v1 = Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: 'base-sepolia', payload: {} }))
    for (const name of ['x-payment', 'payment-signature']) {
      const headers = { [name]: v1.toString('base64') }
      const response = await localFetch(url, { headers })
      expect(response.status).toBe(402)
      const { error } = (await response.json()) as { error: string }
      expect(error).toContain('x402 v2 only')
      expect(error).toContain('svc up --twin base-sepolia')
    }
  })
})
