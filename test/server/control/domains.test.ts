/**
 * Custom domains: create / list / get / delete, hostname rules, uniqueness, DNS TXT verification through a real DNS
 * server on loopback (dns2), tenant isolation, scopes, and the gateway serving a verified hostname.
 */
import { createSocket, type Socket } from 'node:dgram'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { hostFetch, startTestDns, type TestDns } from '../../helpers/discovery-domains.js'

let dns: TestDns
let t: TestServer
beforeAll(async () => {
  dns = await startTestDns()
  t = await startTestServer({ dnsServers: [dns.server] })
})
afterAll(async () => {
  await t?.stop()
  await dns?.close()
})

const dev = { environment: 'development' }
let counter = 0
const unique = () => `${process.pid}-${Date.now().toString(36)}-${++counter}`

async function sellerWithApi() {
  const { jwt } = await t.signup()
  const slug = `dom-${unique()}`
  const api = await t.call('/apis', {
    ...dev,
    jwt,
    body: {
      name: 'Shop',
      slug,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    },
  })
  expect(api.status).toBe(201)
  return { jwt, apiId: api.body.id as string, slug }
}

const addDomain = (jwt: string, apiId: string, hostname: string) =>
  t.call(`/apis/${apiId}/domains`, { ...dev, jwt, body: { hostname } })

describe('domains CRUD', () => {
  test('create → pending with the TXT record and CNAME target; list, get, delete', async () => {
    const { jwt, apiId, slug } = await sellerWithApi()
    const hostname = `shop-${unique()}.example.test`
    const created = await addDomain(jwt, apiId, hostname)
    expect(created.status).toBe(201)
    const domain = created.body
    expect(domain).toMatchObject({
      api_id: apiId,
      hostname,
      status: 'pending',
      cname_target: `${slug}.dev.localhost`,
      verified_at: null,
      verification_record: {
        type: 'TXT',
        name: `_svc-challenge.${hostname}`,
        value: `svc-verification=${domain.verification_token}`,
      },
    })
    expect(domain.verification_token).toMatch(/^[0-9a-f]{32}$/)

    expect((await t.call(`/apis/${apiId}/domains`, { ...dev, jwt })).body).toEqual({ domains: [domain] })
    expect((await t.call(`/apis/${apiId}/domains/${domain.id}`, { ...dev, jwt })).body).toEqual(domain)

    expect(await t.call(`/apis/${apiId}/domains/${domain.id}`, { ...dev, jwt, method: 'DELETE' })).toMatchObject({
      status: 200,
      body: { id: domain.id, deleted: true },
    })
    expect((await t.call(`/apis/${apiId}/domains`, { ...dev, jwt })).body).toEqual({ domains: [] })
    expect(await t.call(`/apis/${apiId}/domains/${domain.id}`, { ...dev, jwt })).toMatchObject({
      status: 404,
      body: { error: 'domain not found' },
    })
    expect(await t.call(`/apis/${apiId}/domains/${domain.id}`, { ...dev, jwt, method: 'DELETE' })).toMatchObject({
      status: 404,
    })
  })

  test('hostnames are trimmed, lower-cased and lose a final dot', async () => {
    const { jwt, apiId } = await sellerWithApi()
    const name = `MiXeD-${unique()}.Example.TEST`
    const created = await addDomain(jwt, apiId, ` ${name}. `)
    expect(created).toMatchObject({ status: 201, body: { hostname: name.toLowerCase() } })
  })

  test.each([
    ['localhost', 'reserved'],
    ['shop.localhost', 'reserved'],
    ['shop.dev.localhost', 'reserved'],
    ['api.localhost', 'reserved'],
    ['127.0.0.1', 'IP address'],
    ['::1', 'IP address'],
    ['[::1]', 'IP address'],
    ['intranet', 'fully qualified'],
    ['bad_label.example.com', 'invalid label'],
    ['-shop.example.com', 'invalid label'],
    ['shop..example.com', 'empty label'],
    ['*.example.com', 'invalid label'],
    ['shop.example.123', 'numeric'],
    ['ünicode.example.com', 'punycode'],
    ['', 'fully qualified'],
  ])('%j → 400 (%s)', async (hostname, reason) => {
    const { jwt, apiId } = await sellerWithApi()
    const response = await addDomain(jwt, apiId, hostname)
    expect(response.status).toBe(400)
    expect(response.body.error).toContain(reason)
  })

  test('a missing or non-string hostname, or an unknown field → 400', async () => {
    const { jwt, apiId } = await sellerWithApi()
    expect(await t.call(`/apis/${apiId}/domains`, { ...dev, jwt, body: {} })).toMatchObject({
      status: 400,
      body: { error: 'hostname: required' },
    })
    expect((await t.call(`/apis/${apiId}/domains`, { ...dev, jwt, body: { hostname: 5 } })).status).toBe(400)
    expect(
      (await t.call(`/apis/${apiId}/domains`, { ...dev, jwt, body: { hostname: 'a.example.test', x: 1 } })).status,
    ).toBe(400)
  })

  test('a hostname is unique across all APIs and sellers → 409', async () => {
    const a = await sellerWithApi()
    const b = await sellerWithApi()
    const hostname = `taken-${unique()}.example.test`
    expect((await addDomain(a.jwt, a.apiId, hostname)).status).toBe(201)
    expect(await addDomain(a.jwt, a.apiId, hostname)).toMatchObject({
      status: 409,
      body: { error: 'hostname already exists' },
    })
    expect(await addDomain(b.jwt, b.apiId, hostname.toUpperCase())).toMatchObject({
      status: 409,
      body: { error: 'hostname already exists' },
    })
  })
})

describe('verification through DNS', () => {
  test('pending (no record) → pending (wrong value) → verified → already verified; the gateway then serves the hostname', async () => {
    const { jwt, apiId } = await sellerWithApi()
    const hostname = `verify-${unique()}.example.test`
    const domain = (await addDomain(jwt, apiId, hostname)).body
    const verify = () => t.call(`/apis/${apiId}/domains/${domain.id}/verify`, { ...dev, jwt, method: 'POST' })
    const fetchVia = hostFetch([hostname])
    const gateway = `http://${hostname}:${t.server.port}`

    // Not verified: the gateway does not know the hostname.
    expect((await fetchVia(`${gateway}/openapi.json`)).status).toBe(404)

    const missing = await verify()
    expect(missing).toMatchObject({
      status: 200,
      body: { status: 'pending', domain: { id: domain.id, status: 'pending', verified_at: null } },
    })
    expect(missing.body.reason).toContain(`no TXT record at _svc-challenge.${hostname}`)
    expect(dns.queries).toContain(`_svc-challenge.${hostname}`)

    dns.txt.set(`_svc-challenge.${hostname}`, ['svc-verification=not-the-token', 'v=spf1 -all'])
    const wrong = await verify()
    expect(wrong).toMatchObject({ status: 200, body: { status: 'pending' } })
    expect(wrong.body.reason).toContain('none equal to')

    // Several values, the right one split into two character-strings: they are joined.
    const value = domain.verification_record.value as string
    dns.txt.set(`_svc-challenge.${hostname}`, ['v=spf1 -all', [value.slice(0, 10), value.slice(10)]])
    const verified = await verify()
    expect(verified).toMatchObject({
      status: 200,
      body: { status: 'verified', domain: { id: domain.id, status: 'verified' } },
    })
    expect(Date.parse(verified.body.domain.verified_at)).toBeGreaterThan(Date.now() - 60_000)
    expect(verified.body).not.toHaveProperty('reason')

    const queried = dns.queries.length
    const again = await verify()
    expect(again).toMatchObject({ status: 200, body: { status: 'already verified', domain: verified.body.domain } })
    expect(dns.queries.length).toBe(queried)

    // The gateway serves the API on the verified hostname.
    const document = await fetchVia(`${gateway}/openapi.json`)
    expect(document.status).toBe(200)
    expect(await document.json()).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Shop' },
      servers: [{ url: gateway }],
    })
    const wellKnown = await fetchVia(`${gateway}/.well-known/x402.json`)
    expect(await wellKnown.json()).toMatchObject({ version: 1, resources: [] })

    // Deleting the domain stops it at once.
    expect((await t.call(`/apis/${apiId}/domains/${domain.id}`, { ...dev, jwt, method: 'DELETE' })).status).toBe(200)
    expect((await fetchVia(`${gateway}/openapi.json`)).status).toBe(404)
  })

  test('a DNS server that does not answer → pending with a timeout reason, within the bounded timeout', async () => {
    const silent: Socket = createSocket('udp4')
    await new Promise<void>((resolve) => silent.bind(0, '127.0.0.1', resolve))
    const other = await startTestServer({ dnsServers: [`127.0.0.1:${(silent.address() as AddressInfo).port}`] })
    try {
      const { jwt } = await other.signup()
      const api = await other.call('/apis', {
        ...dev,
        jwt,
        body: {
          name: 'Slow',
          slug: `slow-${unique()}`,
          upstream_base_url: 'http://127.0.0.1:9',
          pay_to_mode: 'user_wallet',
          pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        },
      })
      const domain = await other.call(`/apis/${api.body.id}/domains`, {
        ...dev,
        jwt,
        body: { hostname: `slow-${unique()}.example.test` },
      })
      const started = Date.now()
      const result = await other.call(`/apis/${api.body.id}/domains/${domain.body.id}/verify`, {
        ...dev,
        jwt,
        method: 'POST',
      })
      expect(result).toMatchObject({ status: 200, body: { status: 'pending' } })
      expect(result.body.reason).toContain('timed out')
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      await other.stop()
      silent.close()
    }
  })
})

describe('isolation and scopes', () => {
  test("another seller's API or domain → 404", async () => {
    const owner = await sellerWithApi()
    const intruder = await sellerWithApi()
    const domain = (await addDomain(owner.jwt, owner.apiId, `mine-${unique()}.example.test`)).body
    const as = { ...dev, jwt: intruder.jwt }
    expect(await t.call(`/apis/${owner.apiId}/domains`, as)).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(
      await t.call(`/apis/${owner.apiId}/domains`, { ...as, body: { hostname: `x-${unique()}.example.test` } }),
    ).toMatchObject({ status: 404 })
    expect(await t.call(`/apis/${owner.apiId}/domains/${domain.id}`, { ...as, method: 'DELETE' })).toMatchObject({
      status: 404,
    })
    expect(await t.call(`/apis/${owner.apiId}/domains/${domain.id}/verify`, { ...as, method: 'POST' })).toMatchObject({
      status: 404,
    })
    // The owner's domain id under the intruder's own API.
    expect(await t.call(`/apis/${intruder.apiId}/domains/${domain.id}`, as)).toMatchObject({
      status: 404,
      body: { error: 'domain not found' },
    })
    expect(await t.call(`/apis/${intruder.apiId}/domains/${domain.id}`, { ...as, method: 'DELETE' })).toMatchObject({
      status: 404,
      body: { error: 'domain not found' },
    })
    expect(
      await t.call(`/apis/${intruder.apiId}/domains/${domain.id}/verify`, { ...as, method: 'POST' }),
    ).toMatchObject({ status: 404, body: { error: 'domain not found' } })
    // The other environment's view of the same seller is another tenant too.
    expect(await t.call(`/apis/${owner.apiId}/domains`, { jwt: owner.jwt })).toMatchObject({ status: 404 })
    expect((await t.call(`/apis/${owner.apiId}/domains`, { ...dev, jwt: owner.jwt })).body.domains).toHaveLength(1)
  })

  test('domains:read lists; writes need domains:write; verification needs a verified email', async () => {
    const { jwt, apiId } = await sellerWithApi()
    const domain = (await addDomain(jwt, apiId, `scoped-${unique()}.example.test`)).body
    const readOnly = await t.createKey(jwt, 'development', ['domains:read', 'apis:read'])
    const noDomains = await t.createKey(jwt, 'development', ['apis:read', 'apis:write', 'endpoints:write'])
    const writer = await t.createKey(jwt, 'development', ['domains:write'])
    const call = (key: string, path: string, options: { method?: string; body?: unknown } = {}) =>
      t.call(path, { host: 'development', key, ...options })
    const forbidden = { status: 403, body: { error: 'insufficient scope' } }

    expect((await call(readOnly, `/apis/${apiId}/domains`)).status).toBe(200)
    expect((await call(readOnly, `/apis/${apiId}/domains/${domain.id}`)).status).toBe(200)
    expect(await call(noDomains, `/apis/${apiId}/domains`)).toMatchObject(forbidden)
    expect(await call(writer, `/apis/${apiId}/domains`)).toMatchObject(forbidden)
    for (const key of [readOnly, noDomains]) {
      expect(
        await call(key, `/apis/${apiId}/domains`, { body: { hostname: `k-${unique()}.example.test` } }),
      ).toMatchObject(forbidden)
      expect(await call(key, `/apis/${apiId}/domains/${domain.id}/verify`, { method: 'POST' })).toMatchObject(forbidden)
      expect(await call(key, `/apis/${apiId}/domains/${domain.id}`, { method: 'DELETE' })).toMatchObject(forbidden)
    }
    expect(
      (await call(writer, `/apis/${apiId}/domains`, { body: { hostname: `k-${unique()}.example.test` } })).status,
    ).toBe(201)
    expect(await call(writer, `/apis/${apiId}/domains/${domain.id}/verify`, { method: 'POST' })).toMatchObject({
      status: 200,
      body: { status: 'pending' },
    })
    expect(await call(writer, `/apis/${apiId}/domains/${domain.id}`, { method: 'DELETE' })).toMatchObject({
      status: 200,
    })

    expect(await t.call(`/apis/${apiId}/domains`, { host: 'development' })).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    })
    const unverified = await t.signup({ verified: false })
    expect(
      await t.call(`/apis/${apiId}/domains`, {
        ...dev,
        jwt: unverified.jwt,
        body: { hostname: `u-${unique()}.example.test` },
      }),
    ).toMatchObject({
      status: 403,
      body: { error: 'email verification required' },
    })
  })
})
