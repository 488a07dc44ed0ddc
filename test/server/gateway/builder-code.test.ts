import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { wrapFetchWithPayment } from '@x402/fetch'
import { BUILDER_CODE, BuilderCodeClientExtension } from '@x402/extensions/builder-code'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { PaymentEvent } from '../../../server/payment-events.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import {
  addEndpoint,
  buyerClient,
  createApi,
  errorOf,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
} from './helpers.js'

let stack: GatewayStack
let api: { id: string; gateway: string }
let seller: Awaited<ReturnType<typeof newSeller>>

beforeAll(async () => {
  stack = await startGatewayStack()
  seller = await newSeller(stack.t)
  api = await createApi(stack.t, seller, stack.upstream.url)
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(stack.services, '10000')],
  })
})
afterAll(async () => {
  await stack?.stop()
})

describe('builder-code through the gateway', () => {
  test("the client's service codes are recorded on the settlement, its record and the settled event", async () => {
    const { services, t, buyer } = stack
    const events: PaymentEvent[] = []
    const stop = t.server.events.subscribe(seller.userId, (event) => events.push(event))
    // As the package documents it: the client registers its code, the core client attaches it to each payment.
    const client = buyerClient(services, buyer)
    client.registerExtension(new BuilderCodeClientExtension('bc_my_client'))
    const response = await wrapFetchWithPayment(localFetch, client)(`${api.gateway}/weather/Paris`)
    stop()
    expect(response.status).toBe(200)

    const { body } = await t.call(`/settlements?api_id=${api.id}`, { jwt: seller.jwt, environment: 'development' })
    expect(body.settlements).toEqual([expect.objectContaining({ builder_code: { s: ['bc_my_client'] } })])
    const settled = events.find((event) => event.type === 'payment.settled')
    expect(settled).toMatchObject({ builder_code: { s: ['bc_my_client'] } })
  })

  test('a payment without one records null', async () => {
    const { services, t, buyer } = stack
    const response = await wrapFetchWithPayment(localFetch, buyerClient(services, buyer))(`${api.gateway}/weather/Rome`)
    expect(response.status).toBe(200)
    const { body } = await t.call(`/settlements?api_id=${api.id}`, { jwt: seller.jwt, environment: 'development' })
    expect(body.settlements.find((s: { path: string }) => s.path === '/weather/Rome').builder_code).toBeNull()
  })

  test.each([
    ['an uppercase code', { info: { s: ['BC_Client'] } }, /not a builder code/],
    ['an unknown field', { info: { x: 'bc' } }, /unknown field "x"/],
    ['no info', 'bc_client', /info must be an object/],
  ])('%s is a 400: nothing charged', async (_, extension, message) => {
    const { services, buyer } = stack
    const url = `${api.gateway}/weather/Quito`
    const probe = await localFetch(url)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    const payload = await buyerClient(services, buyer).createPaymentPayload(required)
    const header = encodePaymentSignatureHeader({
      ...payload,
      extensions: { ...payload.extensions, [BUILDER_CODE]: extension },
    })
    const before = await usdcBalance(services, buyer.address)
    const response = await localFetch(url, { headers: { 'payment-signature': header } })
    expect(response.status).toBe(400)
    expect(await errorOf(response)).toMatch(message)
    expect(await usdcBalance(services, buyer.address)).toBe(before)
  })
})
