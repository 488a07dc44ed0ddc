import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSvcClient, SvcApiError, type SvcClient } from '../../sdk/client.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { startTestDns, type TestDns } from '../helpers/discovery-domains.js'

let t: TestServer
let dns: TestDns
let seller: SvcClient
let apiId: string
let slug: string

beforeAll(async () => {
  dns = await startTestDns()
  t = await startTestServer({ dnsServers: [dns.server] })
  const { jwt } = await t.signup()
  seller = createSvcClient({ baseUrl: t.server.controlUrl, jwt, environment: 'production' })
  slug = `sdk-${Date.now()}`
  apiId = (
    await seller.apis.create({
      name: 'SDK',
      slug,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
  ).id
})
afterAll(async () => {
  await t?.stop()
  await dns?.close()
})

describe('createSvcClient: discovery, domains, stats, settlements', () => {
  test('discovery summarizes where the documents are', async () => {
    expect(await seller.discovery(apiId)).toEqual({
      primary_host: `${slug}.localhost`,
      hosts: [`${slug}.localhost`],
      openapi_url: `http://${slug}.localhost:${t.server.port}/openapi.json`,
      well_known_url: `http://${slug}.localhost:${t.server.port}/.well-known/x402.json`,
      endpoint_count: 0,
      discoverable_endpoint_count: 0,
      host_urls: [
        {
          host: `${slug}.localhost`,
          openapi_url: `http://${slug}.localhost:${t.server.port}/openapi.json`,
          well_known_url: `http://${slug}.localhost:${t.server.port}/.well-known/x402.json`,
          is_primary: true,
        },
      ],
    })
  })

  test('domains: add, get, list, verify (pending, then verified, then already verified), delete', async () => {
    const hostname = `${slug}.example.test`
    const domain = await seller.domains.add(apiId, hostname)
    expect(domain).toMatchObject({
      hostname,
      status: 'pending',
      verification_record: { type: 'TXT', name: `_svc-challenge.${hostname}` },
    })
    expect(await seller.domains.get(apiId, domain.id)).toEqual(domain)
    expect(await seller.domains.list(apiId)).toEqual([domain])

    const pending = await seller.domains.verify(apiId, domain.id)
    expect(pending).toMatchObject({ status: 'pending', reason: expect.any(String) })
    dns.txt.set(domain.verification_record.name, [domain.verification_record.value])
    expect((await seller.domains.verify(apiId, domain.id)).status).toBe('verified')
    expect((await seller.domains.verify(apiId, domain.id)).status).toBe('already verified')
    expect((await seller.discovery(apiId)).primary_host).toBe(hostname)

    expect(await seller.domains.delete(apiId, domain.id)).toEqual({ id: domain.id, deleted: true })
    await expect(seller.domains.get(apiId, domain.id)).rejects.toMatchObject({
      status: 404,
      message: 'domain not found',
    })
  })

  test('stats overview with days and api_id', async () => {
    const stats = await seller.stats.overview({ days: 3, api_id: apiId })
    expect(stats).toMatchObject({ days: 3, api_id: apiId, totals: { requests: 0, settlements: 0 }, revenue: [] })
    expect(stats.daily.map((d) => d.day)).toHaveLength(3)
    expect((await seller.stats.overview()).days).toBe(7)
  })

  test('settlements: a JSON page and the CSV export', async () => {
    expect(await seller.settlements.list({ api_id: apiId, limit: 5 })).toEqual({ settlements: [], next_cursor: null })
    const csv = await seller.settlements.csv({ api_id: apiId, from: '2020-01-01' })
    expect(csv).toBe(
      'id,api_id,endpoint_id,environment,network,asset,amount,payer,pay_to,transaction,method,path,created_at,chain_epoch,old_chain,delivered,escrow_state,authorized,captured,refunded\r\n',
    )
    const error = await seller.settlements.list({ cursor: 'garbage' }).catch((e) => e)
    expect(error).toBeInstanceOf(SvcApiError)
    expect(error).toMatchObject({ status: 400 })
  })
})
