import { once } from 'node:events'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { createSvcClient, SvcApiError } from '../../sdk/client.js'
import { startTestServer, type TestServer } from '../helpers/control.js'

let chain: ChainServices
let t: TestServer
beforeAll(async () => {
  chain = await startChainServices()
  t = await startTestServer({ chain })
})
afterAll(async () => {
  await t?.stop()
  await chain?.stop()
})

describe('createSvcClient', () => {
  test('a seller signs up, verifies, creates a Sandbox key, an API and an endpoint', async () => {
    const anonymous = createSvcClient({ baseUrl: t.server.sandboxControlUrl })
    const email = `sdk-${Date.now()}@example.test`
    const { token } = await anonymous.auth.signup(email, 'a long password')
    const { messages } = await anonymous.auth.outbox(email)
    await anonymous.auth.verifyEmail(messages[0]!.token!)

    const seller = createSvcClient({ baseUrl: t.server.sandboxControlUrl, jwt: token, environment: 'development' })
    expect((await seller.auth.me()).environment).toBe('development')
    const key = await seller.keys.create({ name: 'ci', preset: 'apiManager' })
    expect(key.key).toMatch(/^svc_sandbox_/)

    const automation = createSvcClient({ baseUrl: t.server.sandboxControlUrl, apiKey: key.key })
    const api = await automation.apis.create({
      name: 'Weather',
      slug: `weather-${Date.now()}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    const { usdc } = await automation.config.localDev()
    const endpoint = await automation.endpoints.create(api.id, {
      method: 'GET',
      path_pattern: '/forecast/{city}',
      accepts: [{ scheme: 'exact', network: usdc.network, asset: usdc.address, amount: '10000' }],
    })
    expect(endpoint.accepts[0]).toMatchObject({ max_timeout_seconds: 300, extra: { name: 'USDC', version: '2' } })
    expect((await automation.endpoints.list(api.id)).map((e) => e.id)).toEqual([endpoint.id])

    const wallet = await seller.sandbox.wallet()
    expect(wallet.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
  })

  test('errors carry the status and the server message', async () => {
    const client = createSvcClient({ baseUrl: t.server.controlUrl })
    const error = await client.apis.list().catch((e) => e)
    expect(error).toBeInstanceOf(SvcApiError)
    expect(error).toMatchObject({ status: 401, message: 'unauthorized' })
  })

  test('request(): any route untyped, with the same headers, query and errors as the typed methods', async () => {
    const anonymous = createSvcClient({ baseUrl: t.server.sandboxControlUrl })
    const { token } = await anonymous.auth.signup(`sdk-request-${Date.now()}@example.test`, 'a long password')
    const seller = createSvcClient({ baseUrl: t.server.sandboxControlUrl, jwt: token, environment: 'development' })
    expect(await seller.request('GET', '/auth/me')).toEqual(await seller.auth.me())
    expect(await seller.request('GET', '/settlements', { query: { limit: 1, api_id: undefined } })).toEqual({
      settlements: [],
      next_cursor: null,
    })
    const csv = await seller.request<string>('GET', '/settlements', { query: { format: 'csv' }, accept: 'text/csv' })
    expect(csv).toMatch(/^id,/)
    // Not verified yet: creating an API is refused, with the server's message and body.
    const refused = await seller.request('POST', '/apis', { body: { name: 'x' } }).catch((e) => e)
    expect(refused).toBeInstanceOf(SvcApiError)
    expect(refused).toMatchObject({
      status: 403,
      message: 'email verification required',
      body: { error: 'email verification required' },
    })
    await expect(seller.request('GET', '/no/such/route')).rejects.toMatchObject({ status: 404 })
  })

  test('an unreachable server is a clear error, not a stack trace', async () => {
    const closed = createServer().listen(0)
    await once(closed, 'listening')
    const port = (closed.address() as AddressInfo).port
    closed.close()
    const client = createSvcClient({ baseUrl: `http://api.localhost:${port}` })
    await expect(client.config.platform()).rejects.toThrow(
      `cannot reach http://api.localhost:${port} (ECONNREFUSED): is svc up running?`,
    )
  })
})
