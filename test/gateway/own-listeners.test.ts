import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { newAccount } from '../helpers/payments.js'
import { addEndpoint, createApi, newSeller, payingFetch, sandboxAccept, startUpstream } from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let buyer: LocalAccount

beforeAll(async () => {
  services = await startChainServices()
  t = await startTestServer({ chain: services })
  upstream = await startUpstream()
  buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '100')
})
afterAll(async () => {
  await t?.stop()
  await upstream?.stop()
  await services?.stop()
})

/** An API whose upstream is `upstreamUrl`, written to the database directly (the control plane refuses svc's own listeners). */
async function apiReaching(upstreamUrl: string, path: string) {
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  await t.server.database.db.updateTable('apis').set({ upstream_base_url: upstreamUrl }).where('id', '=', api.id).execute()
  await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern: path, accepts: [sandboxAccept(services)] })
  return api
}

describe('local-only routes through the gateway', () => {
  test('a paying buyer does not read /dev/outbox through an API whose upstream is svc itself', async () => {
    await t.signup({ verified: false })
    const direct = await localFetch(`${t.server.controlUrl}/dev/outbox`)
    expect(direct.status).toBe(200)
    expect(((await direct.json()) as { messages: unknown[] }).messages.length).toBeGreaterThan(0)

    const api = await apiReaching(`http://127.0.0.1:${t.server.port}`, '/dev/outbox')
    const response = await payingFetch(services, buyer)(`${api.gateway}/dev/outbox`)
    const text = await response.text()
    expect(response.status).not.toBe(200)
    expect(text).not.toContain('messages')
  })

  test('a buyer cannot forge or remove the gateway marker: the upstream always gets it, once', async () => {
    const api = await apiReaching(upstream.url, '/echo')
    const response = await payingFetch(services, buyer)(`${api.gateway}/echo`, { headers: { 'x-svc-via-gateway': 'forged' } })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { headers: Record<string, string> }).headers['x-svc-via-gateway']).toBe('1')
  })
})
