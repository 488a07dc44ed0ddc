import { decodePaymentRequiredHeader } from '@x402/core/http'
import { localFetch } from '../../../sdk/local-fetch.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import type { TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  type startUpstream,
  usdcBalance,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let stack: GatewayStack | undefined

beforeAll(async () => {
  ;({ services, t, upstream } = stack = await startGatewayStack())
})
afterAll(async () => {
  await stack?.stop()
})

/** The amount a 402 of `url` asks for, or the status when it is not a 402. */
async function priceOf(url: string, method = 'GET'): Promise<string | number> {
  const response = await localFetch(url, { method })
  await response.arrayBuffer()
  if (response.status !== 402) return response.status
  return decodePaymentRequiredHeader(response.headers.get('payment-required')!).accepts[0]!.amount
}

describe('route matching', () => {
  test('the most specific pattern wins: literal segments, then parameters, the wildcard last', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const patterns: [string, string, string?][] = [
      ['/files/*', '1000'],
      ['/files/{name}', '2000'],
      ['/files/readme', '3000'],
      ['/files/{dir}/*', '4000'],
      ['/files/img*', '5000'],
      ['/files/readme', '6000', 'POST'],
    ]
    for (const [path_pattern, amount, method = 'GET'] of patterns)
      await addEndpoint(t, seller, api.id, { method, path_pattern, accepts: [sandboxAccept(services, amount)] })
    const expected: [string, string | number, string?][] = [
      ['/files/readme', '3000'],
      ['/files/readme', '6000', 'POST'],
      ['/files/other', '2000'],
      ['/files/a/b/c', '4000'],
      ['/files/', '1000'],
      ['/files/img', '2000'],
      ['/files/img/x', '4000'],
      ['/files/imgs.png', '2000'],
      ['/files', 404],
      ['/files/readme', 404, 'DELETE'],
    ]
    for (const [path, price, method] of expected)
      expect([path, method, await priceOf(`${api.gateway}${path}`, method)]).toEqual([path, method, price])
  })

  test('a disabled endpoint does not match, from the next request on; enabled again, it does', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const endpoint = await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/weather/Kyiv`
    const update = (body: unknown) =>
      t.call(`/apis/${api.id}/endpoints/${endpoint.id}`, {
        jwt: seller.jwt,
        environment: 'development',
        method: 'PUT',
        body,
      })
    expect(await priceOf(url)).toBe('10000')
    expect((await update({ enabled: false })).status).toBe(200)
    expect(await priceOf(url)).toBe(404)
    expect((await update({ enabled: true, accepts: [sandboxAccept(services, '777')] })).status).toBe(200)
    expect(await priceOf(url)).toBe('777')
    expect(
      (
        await t.call(`/apis/${api.id}/endpoints/${endpoint.id}`, {
          jwt: seller.jwt,
          environment: 'development',
          method: 'DELETE',
        })
      ).status,
    ).toBe(200)
    expect(await priceOf(url)).toBe(404)
  })

  test('an endpoint past its expires_at does not match', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const endpoint = await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
      ttl: 1,
    })
    const url = `${api.gateway}/weather/Kyiv`
    expect(await priceOf(url)).toBe('10000')
    await expect.poll(() => Date.now(), { timeout: 5_000 }).toBeGreaterThan(Date.parse(endpoint.expires_at))
    expect(await priceOf(url)).toBe(404)
    // …and it is deleted, not only hidden.
    await expect
      .poll(
        () =>
          t.server.database.db.selectFrom('endpoints').select('id').where('id', '=', endpoint.id).executeTakeFirst(),
        { timeout: 5_000 },
      )
      .toBeUndefined()
  })
})

describe('an ephemeral (ttl) endpoint', () => {
  test('is gone after its first settlement', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const endpoint = await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
      ttl: 300,
    })
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const response = await payingFetch(services, buyer)(`${api.gateway}/weather/Quito`)
    expect(response.status).toBe(200)
    const after = await localFetch(`${api.gateway}/weather/Quito`)
    expect(after.status).toBe(410)
    expect(await after.json()).toEqual({ error: 'this one-time endpoint was used up by an earlier payment' })
    const listed = await t.call(`/apis/${api.id}/endpoints`, { jwt: seller.jwt, environment: 'development' })
    expect(listed.body.endpoints.map((e: { id: string }) => e.id)).not.toContain(endpoint.id)
    const settlements = await t.server.database.db
      .selectFrom('settlements')
      .selectAll()
      .where('api_id', '=', api.id)
      .execute()
    expect(settlements).toEqual([
      expect.objectContaining({ endpoint_id: null, path: '/weather/Quito', amount: '10000' }),
    ])
  })

  test('8 buyers racing for it: exactly one is served and charged', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services, '50000')],
      ttl: 300,
    })
    const buyers = Array.from({ length: 8 }, () => newAccount())
    for (const buyer of buyers) await services.manager.fund(buyer.address, 'usdc', '1')
    const before = await Promise.all(buyers.map((buyer) => usdcBalance(services, buyer.address)))

    const responses = await Promise.all(
      buyers.map((buyer) => payingFetch(services, buyer)(`${api.gateway}/weather/Race`)),
    )
    const statuses = responses.map((response) => response.status)
    expect(statuses.filter((status) => status === 200)).toHaveLength(1)
    for (const status of statuses) expect([200, 402, 404, 410]).toContain(status)

    const after = await Promise.all(buyers.map((buyer) => usdcBalance(services, buyer.address)))
    const charged = buyers.filter((_, i) => after[i] !== before[i])
    expect(charged).toHaveLength(1)
    expect(after[statuses.indexOf(200)]).toBe(before[statuses.indexOf(200)]! - 50000n)
    expect(await usdcBalance(services, seller.payTo)).toBe(50000n)
    expect(
      await t.server.database.db.selectFrom('settlements').selectAll().where('api_id', '=', api.id).execute(),
    ).toHaveLength(1)
  })
})
