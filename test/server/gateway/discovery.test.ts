/**
 * Gateway discovery documents (GET /openapi.json, GET /.well-known/x402[.json]) and the control-plane discovery
 * summary (GET /apis/{id}/discovery): content, live regeneration, exclusions, contact resolution, validity (OpenAPI
 * 3.1 schema + @agentcash/discovery's origin audit), custom domains.
 */
import { Validator } from '@seriousme/openapi-schema-validator'
import { discoverOriginSchema } from '@agentcash/discovery'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { auditOrigin, hostFetch, startTestDns, type TestDns } from '../../helpers/discovery-domains.js'

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

const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const accept = (amount: string) => ({ scheme: 'exact', network: 'eip155:845320402', asset: usdc, amount })
const dev = { environment: 'development' }
let counter = 0

async function seller(apiFields: Record<string, unknown> = {}) {
  const { jwt, email } = await t.signup()
  const slug = `disc-${process.pid}-${Date.now().toString(36)}-${++counter}`
  const api = await t.call('/apis', {
    ...dev,
    jwt,
    body: {
      name: 'Weather Co',
      slug,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      ...apiFields,
    },
  })
  expect(api.status).toBe(201)
  const apiId = api.body.id as string
  const endpoint = async (body: Record<string, unknown>) => {
    const created = await t.call(`/apis/${apiId}/endpoints`, {
      ...dev,
      jwt,
      body: { accepts: [accept('10000')], ...body },
    })
    expect(created.status).toBe(201)
    return created.body as { id: string }
  }
  return { jwt, email, apiId, slug, origin: t.gatewayUrl(slug), endpoint }
}

async function get(url: string, fetchImpl: typeof fetch = localFetch) {
  const response = await fetchImpl(url)
  expect(response.status).toBe(200)
  expect(response.headers.get('cache-control')).toBe('no-store')
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  return (await response.json()) as any
}

async function expectValidOpenApi(document: unknown) {
  const validator = new Validator()
  const result = await validator.validate(document as Record<string, unknown>)
  expect(result.errors ?? []).toEqual([])
  expect(result.valid).toBe(true)
  expect(validator.version).toBe('3.1')
}

/** The endpoints of the main fixture: four discoverable, one disabled, one ephemeral. */
async function richApi() {
  const s = await seller({
    discovery_guidance: 'Pay per call with x402 (USDC).',
    discovery_contact_email: 'ops@example.test',
    openapi_version: '2.1.0',
  })
  await s.endpoint({
    method: 'GET',
    path_pattern: '/weather/{city}',
    description: 'Current weather of a city',
    response_schema: { type: 'object', properties: { temp: { type: 'number' } } },
  })
  await s.endpoint({
    method: 'POST',
    path_pattern: '/search',
    accepts: [accept('1500000')],
    request_schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    response_schema: { type: 'array' },
  })
  await s.endpoint({ method: 'POST', path_pattern: '/items/{id}', accepts: [accept('1')] })
  await s.endpoint({
    method: 'GET',
    path_pattern: '/files/*',
    accepts: [accept('20000'), accept('10000')],
    response_schema: { type: 'string' },
  })
  await s.endpoint({ method: 'GET', path_pattern: '/disabled', enabled: false, response_schema: { type: 'object' } })
  await s.endpoint({ method: 'GET', path_pattern: '/ephemeral', ttl: 3600, response_schema: { type: 'object' } })
  return s
}

describe('GET /openapi.json', () => {
  test('info, servers, and one paid operation per discoverable endpoint; a valid OpenAPI 3.1 document', async () => {
    const { origin } = await richApi()
    const document = await get(`${origin}/openapi.json`)
    await expectValidOpenApi(document)
    expect(document).toMatchObject({
      openapi: '3.1.0',
      info: {
        title: 'Weather Co',
        version: '2.1.0',
        'x-guidance': 'Pay per call with x402 (USDC).',
        contact: { email: 'ops@example.test' },
      },
      servers: [{ url: origin }],
    })
    expect(Object.keys(document.paths)).toEqual(['/weather/{city}', '/search', '/items/{id}', '/files/{path}'])
    const x402 = [{ x402: {} }]
    const paymentRequired = { description: 'Payment Required', headers: { 'PAYMENT-REQUIRED': expect.any(Object) } }

    expect(document.paths['/weather/{city}']).toEqual({
      get: {
        summary: 'GET /weather/{city}',
        description: 'Current weather of a city',
        security: [],
        'x-payment-info': { price: { mode: 'fixed', currency: 'USD', amount: '0.01' }, protocols: x402 },
        parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'Successful response',
            content: { 'application/json': { schema: { type: 'object', properties: { temp: { type: 'number' } } } } },
          },
          '402': paymentRequired,
        },
      },
    })
    expect(document.paths['/search'].post).toMatchObject({
      'x-payment-info': { price: { mode: 'fixed', currency: 'USD', amount: '1.50' }, protocols: x402 },
      requestBody: {
        content: {
          'application/json': { schema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } },
        },
      },
      responses: { '200': { content: { 'application/json': { schema: { type: 'array' } } } }, '402': paymentRequired },
    })
    expect(document.paths['/search'].post).not.toHaveProperty('parameters')
    // Inferred schemas: the envelope's body part is the request body, its path part the parameters.
    expect(document.paths['/items/{id}'].post).toMatchObject({
      'x-payment-info': { price: { mode: 'fixed', currency: 'USD', amount: '0.000001' } },
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      requestBody: { required: true, content: { 'application/json': { schema: { type: 'object' } } } },
    })
    expect(JSON.stringify(document.paths['/items/{id}'])).not.toContain('svc inferred request')
    // A trailing `*`: a catch-all `{path}` parameter; two USDC amounts: a dynamic price.
    expect(document.paths['/files/{path}'].get).toMatchObject({
      'x-payment-info': { price: { mode: 'dynamic', currency: 'USD', min: '0.01', max: '0.02' }, protocols: x402 },
      parameters: [
        {
          name: 'path',
          in: 'path',
          required: true,
          description: expect.stringContaining('/'),
          schema: { type: 'string' },
        },
      ],
    })
  })

  test('defaults: info.version 1.0.0, no x-guidance without guidance, an empty API is still valid', async () => {
    const { origin } = await seller()
    const document = await get(`${origin}/openapi.json`)
    await expectValidOpenApi(document)
    expect(document.info.version).toBe('1.0.0')
    expect(document.info).not.toHaveProperty('x-guidance')
    expect(document.paths).toEqual({})
  })

  test('contact email: explicit, else the verified owner, else none', async () => {
    const s = await seller({ discovery_contact_email: 'support@example.test' })
    const contact = async () => (await get(`${s.origin}/openapi.json`)).info.contact
    expect(await contact()).toEqual({ email: 'support@example.test' })
    expect(
      (await t.call(`/apis/${s.apiId}`, { ...dev, jwt: s.jwt, method: 'PUT', body: { discovery_contact_email: null } }))
        .status,
    ).toBe(200)
    expect(await contact()).toEqual({ email: s.email })
    // An owner whose email is not verified (no route un-verifies one: the row is changed directly).
    await t.server.database.db
      .updateTable('users')
      .set({ email_verified_at: null })
      .where('email', '=', s.email)
      .execute()
    expect(await contact()).toBeUndefined()
  })

  test('regenerated on every request from live configuration', async () => {
    const s = await seller({ discovery_guidance: 'v1 guidance' })
    const paths = async () => Object.keys((await get(`${s.origin}/openapi.json`)).paths)
    const resources = async () => (await get(`${s.origin}/.well-known/x402.json`)).resources
    expect(await paths()).toEqual([])

    const first = await s.endpoint({ method: 'GET', path_pattern: '/a', response_schema: { type: 'object' } })
    expect(await paths()).toEqual(['/a'])
    expect(await resources()).toEqual([`${s.origin}/a`])

    const update = (body: unknown) =>
      t.call(`/apis/${s.apiId}/endpoints/${first.id}`, { ...dev, jwt: s.jwt, method: 'PUT', body })
    expect((await update({ enabled: false })).status).toBe(200)
    expect(await paths()).toEqual([])
    expect(await resources()).toEqual([])
    expect((await update({ enabled: true, path_pattern: '/b/{id}' })).status).toBe(200)
    expect(await paths()).toEqual(['/b/{id}'])
    expect(await resources()).toEqual([`${s.origin}/b/{id}`])
    expect((await update({ accepts: [accept('250000')] })).status).toBe(200)
    expect((await get(`${s.origin}/openapi.json`)).paths['/b/{id}'].get['x-payment-info'].price.amount).toBe('0.25')

    const changeApi = (body: unknown) => t.call(`/apis/${s.apiId}`, { ...dev, jwt: s.jwt, method: 'PUT', body })
    expect(
      (await changeApi({ name: 'Renamed', openapi_version: '3.0.0', discovery_guidance: 'v2 guidance' })).status,
    ).toBe(200)
    expect((await get(`${s.origin}/openapi.json`)).info).toMatchObject({
      title: 'Renamed',
      version: '3.0.0',
      'x-guidance': 'v2 guidance',
    })
    expect((await get(`${s.origin}/.well-known/x402`)).instructions).toBe('v2 guidance')
    expect((await changeApi({ discovery_guidance: null })).status).toBe(200)
    expect((await get(`${s.origin}/openapi.json`)).info).not.toHaveProperty('x-guidance')
    expect(await get(`${s.origin}/.well-known/x402`)).not.toHaveProperty('instructions')

    expect(
      (await t.call(`/apis/${s.apiId}/endpoints/${first.id}`, { ...dev, jwt: s.jwt, method: 'DELETE' })).status,
    ).toBe(200)
    expect(await paths()).toEqual([])
  })
})

describe('GET /.well-known/x402.json', () => {
  test('version 1, the absolute URLs of discoverable endpoints on the requested host, the guidance as instructions', async () => {
    const { origin } = await richApi()
    const manifest = await get(`${origin}/.well-known/x402.json`)
    expect(manifest).toEqual({
      version: 1,
      resources: [`${origin}/weather/{city}`, `${origin}/search`, `${origin}/items/{id}`, `${origin}/files/{path}`],
      instructions: 'Pay per call with x402 (USDC).',
    })
    expect(await get(`${origin}/.well-known/x402`)).toEqual(manifest)
    for (const url of manifest.resources) expect(new URL(url).origin).toBe(origin)
  })
})

describe('@agentcash/discovery', () => {
  test('discovers the origin and its origin audit reports no errors (and no warnings but the missing favicon)', async () => {
    const { origin } = await richApi()
    const fetchImpl = hostFetch([])
    const audit = await auditOrigin(origin, fetchImpl)
    expect(audit.found).toBe(true)
    expect(audit.warnings.filter((w) => w.severity === 'error')).toEqual([])
    expect(audit.warnings.filter((w) => w.severity === 'warn').map((w) => w.code)).toEqual(['FAVICON_MISSING'])
    expect(audit.warnings.filter((w) => w.severity === 'info')).toEqual([])

    const realFetch = globalThis.fetch
    globalThis.fetch = fetchImpl
    try {
      const discovered = await discoverOriginSchema({ target: origin })
      expect(discovered).toMatchObject({
        found: true,
        origin,
        info: { title: 'Weather Co', version: '2.1.0', contactEmail: 'ops@example.test' },
        guidanceAvailable: true,
      })
      if (!discovered.found) throw new Error('not found')
      expect(discovered.endpoints.map((e) => [e.method, e.path, e.authMode, e.price])).toEqual([
        ['GET', '/weather/{city}', 'paid', '0.01 USD'],
        ['POST', '/search', 'paid', '1.50 USD'],
        ['POST', '/items/{id}', 'paid', '0.000001 USD'],
        ['GET', '/files/{path}', 'paid', '0.01-0.02 USD'],
      ])
    } finally {
      globalThis.fetch = realFetch
    }
  })
})

describe('@agentcash/discovery audit sees what is missing', () => {
  test('no guidance, no contact, an operation without input: reported (so the clean audit above means something)', async () => {
    const s = await seller()
    await s.endpoint({ method: 'GET', path_pattern: '/plain', response_schema: { type: 'object' } })
    await t.server.database.db
      .updateTable('users')
      .set({ email_verified_at: null })
      .where('email', '=', s.email)
      .execute()
    const audit = await auditOrigin(s.origin, hostFetch([]))
    expect(audit.found).toBe(true)
    expect(audit.warnings.map((w) => w.code).sort()).toEqual([
      'FAVICON_MISSING',
      'L3_INPUT_SCHEMA_MISSING',
      'L4_GUIDANCE_MISSING',
      'OPENAPI_CONTACT_MISSING',
    ])
  })
})

describe('GET /apis/{id}/discovery and custom domains', () => {
  test('counts, hosts and URLs; a verified custom domain becomes primary and serves valid documents', async () => {
    const s = await richApi()
    const port = t.server.port
    const platform = `${s.slug}.dev.localhost`
    const summary = async () => t.call(`/apis/${s.apiId}/discovery`, { ...dev, jwt: s.jwt })
    const urls = (host: string) => ({
      openapi_url: `http://${host}:${port}/openapi.json`,
      well_known_url: `http://${host}:${port}/.well-known/x402.json`,
    })
    expect(await summary()).toMatchObject({
      status: 200,
      body: {
        primary_host: platform,
        hosts: [platform],
        ...urls(platform),
        endpoint_count: 6,
        discoverable_endpoint_count: 4,
        host_urls: [{ host: platform, ...urls(platform), is_primary: true }],
      },
    })

    // A pending domain is not a host yet.
    const hostname = `weather-${process.pid}-${++counter}.example.test`
    const domain = (await t.call(`/apis/${s.apiId}/domains`, { ...dev, jwt: s.jwt, body: { hostname } })).body
    expect((await summary()).body.hosts).toEqual([platform])
    dns.txt.set(domain.verification_record.name, [domain.verification_record.value])
    expect(
      (await t.call(`/apis/${s.apiId}/domains/${domain.id}/verify`, { ...dev, jwt: s.jwt, method: 'POST' })).body
        .status,
    ).toBe('verified')

    const after = (await summary()).body
    expect(after).toMatchObject({ primary_host: hostname, hosts: [platform, hostname], ...urls(hostname) })
    expect(after.host_urls).toEqual([
      { host: platform, ...urls(platform), is_primary: false },
      { host: hostname, ...urls(hostname), is_primary: true },
    ])

    // The custom domain's documents name the custom host, validate, and pass the origin audit.
    const fetchImpl = hostFetch([hostname])
    const custom = `http://${hostname}:${port}`
    const document = await get(after.openapi_url, fetchImpl)
    await expectValidOpenApi(document)
    expect(document.servers).toEqual([{ url: custom }])
    expect((await get(after.well_known_url, fetchImpl)).resources[0]).toBe(`${custom}/weather/{city}`)
    const audit = await auditOrigin(custom, fetchImpl)
    expect(audit.found).toBe(true)
    expect(audit.warnings.filter((w) => w.severity !== 'info' && w.code !== 'FAVICON_MISSING')).toEqual([])
  })

  test('scope apis:read; other sellers and environments get 404', async () => {
    const s = await seller()
    const path = `/apis/${s.apiId}/discovery`
    const withRead = await t.createKey(s.jwt, 'development', ['apis:read'])
    const without = await t.createKey(s.jwt, 'development', ['endpoints:read', 'domains:read', 'apis:write'])
    expect((await t.call(path, { host: 'development', key: withRead })).status).toBe(200)
    expect(await t.call(path, { host: 'development', key: without })).toMatchObject({
      status: 403,
      body: { error: 'insufficient scope' },
    })
    expect(await t.call(path, { host: 'development' })).toMatchObject({ status: 401 })
    const other = await seller()
    expect(await t.call(path, { ...dev, jwt: other.jwt })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(await t.call(path, { jwt: s.jwt })).toMatchObject({ status: 404 })
  })
})
