import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../helpers/control.js'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(() => t?.stop())

const payTo = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const payToChecksummed = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
let slugs = 0
const uniqueSlug = (base = 'weather') => `${base}-${process.pid}-${++slugs}`
const apiBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Weather',
  slug: uniqueSlug(),
  upstream_base_url: 'https://upstream.example.test/v1',
  pay_to_mode: 'user_wallet',
  pay_to_address: payTo,
  ...overrides,
})

describe('CRUD', () => {
  test('create, read, list, partial update, delete', async () => {
    const { jwt } = await t.signup()
    const body = apiBody({ discovery_guidance: 'Ask for a city.' })
    const created = await t.call('/apis', { jwt, body })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      name: 'Weather',
      slug: body.slug,
      environment: 'production',
      upstream_base_url: 'https://upstream.example.test/v1',
      pay_to_mode: 'user_wallet',
      pay_to_address: payToChecksummed,
      discovery_guidance: 'Ask for a city.',
      discovery_contact_email: null,
      openapi_version: '1.0.0',
      gateway_url: `http://${body.slug}.localhost:${t.server.port}`,
      direct_url: `http://127.0.0.1:${t.server.port}/gateway/${body.slug}.localhost`,
    })
    expect(created.body.id).toMatch(/^api_/)
    expect(created.body.created_at).toBe(created.body.updated_at)
    const id = created.body.id

    expect(await t.call(`/apis/${id}`, { jwt })).toMatchObject({ status: 200, body: created.body })
    expect((await t.call('/apis', { jwt })).body.apis).toEqual([created.body])

    const updated = await t.call(`/apis/${id}`, {
      jwt,
      method: 'PUT',
      body: { name: 'Weather 2', discovery_contact_email: 'ops@example.test', openapi_version: '2.1.0' },
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      name: 'Weather 2',
      slug: body.slug,
      discovery_guidance: 'Ask for a city.',
      discovery_contact_email: 'ops@example.test',
      openapi_version: '2.1.0',
      pay_to_address: payToChecksummed,
    })
    expect(updated.body.updated_at >= created.body.updated_at).toBe(true)
    expect((await t.call(`/apis/${id}`, { jwt })).body).toEqual(updated.body)

    // null clears an optional field; an empty update changes nothing.
    const cleared = await t.call(`/apis/${id}`, { jwt, method: 'PUT', body: { discovery_guidance: null } })
    expect(cleared.body.discovery_guidance).toBeNull()
    expect((await t.call(`/apis/${id}`, { jwt, method: 'PUT', body: {} })).body).toEqual(cleared.body)

    expect(await t.call(`/apis/${id}`, { jwt, method: 'DELETE' })).toMatchObject({
      status: 200,
      body: { id, deleted: true },
    })
    expect(await t.call(`/apis/${id}`, { jwt })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(await t.call(`/apis/${id}`, { jwt, method: 'DELETE' })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect((await t.call('/apis', { jwt })).body.apis).toEqual([])
  })

  test('deleting an API deletes its endpoints', async () => {
    const { jwt } = await t.signup()
    const api = (await t.call('/apis', { jwt, body: apiBody() })).body
    const accepts = [
      { scheme: 'exact', network: 'eip155:8453', asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', amount: '1000' },
    ]
    const endpoint = await t.call(`/apis/${api.id}/endpoints`, {
      jwt,
      body: { method: 'POST', path_pattern: '/x', accepts },
    })
    expect(endpoint.status).toBe(201)
    await t.call(`/apis/${api.id}`, { jwt, method: 'DELETE' })
    const rows = await t.server.database.db.selectFrom('endpoints').select('id').where('api_id', '=', api.id).execute()
    expect(rows).toEqual([])
  })

  test('a Sandbox API lives on the .dev gateway domain', async () => {
    const { jwt } = await t.signup()
    const body = apiBody()
    const created = await t.call('/apis', { jwt, environment: 'development', body })
    expect(created.body).toMatchObject({
      environment: 'development',
      gateway_url: `http://${body.slug}.dev.localhost:${t.server.port}`,
    })
  })
})

describe('validation', () => {
  test.each([
    [{ name: undefined }, 'name: required'],
    [{ name: 5 }, 'name: expected a string'],
    [{ name: '   ' }, 'name: must not be empty'],
    [{ slug: 'My-Api' }, 'slug: must be a DNS label: 1-63 lower-case letters, digits and inner hyphens'],
    [{ slug: '-lead' }, 'slug: must be a DNS label: 1-63 lower-case letters, digits and inner hyphens'],
    [{ slug: 'a'.repeat(64) }, 'slug: must be a DNS label: 1-63 lower-case letters, digits and inner hyphens'],
    [{ slug: 'api' }, 'slug: "api" is reserved'],
    [{ slug: 'sandbox' }, 'slug: "sandbox" is reserved'],
    [{ slug: 'www' }, 'slug: "www" is reserved'],
    [
      { upstream_base_url: 'ftp://files.example.test' },
      'upstream_base_url: must be an absolute http or https URL without query or fragment',
    ],
    [
      { upstream_base_url: 'not a url' },
      'upstream_base_url: must be an absolute http or https URL without query or fragment',
    ],
    [
      { upstream_base_url: 'https://x.test/?key=1' },
      'upstream_base_url: must be an absolute http or https URL without query or fragment',
    ],
    [{ pay_to_mode: 'platform_wallet' }, 'pay_to_mode: only "user_wallet" is supported'],
    [{ pay_to_mode: undefined }, 'pay_to_mode: required'],
    [{ pay_to_address: undefined }, 'pay_to_address: required with pay_to_mode "user_wallet"'],
    [{ pay_to_address: '0x1234' }, 'pay_to_address: not an EVM address (0x followed by 40 hex digits)'],
    [{ pay_to_address: 42 }, 'pay_to_address: expected an EVM address'],
    [{ discovery_contact_email: 'nope' }, 'discovery_contact_email: not an email address'],
    [{ discovery_guidance: 7 }, 'discovery_guidance: expected a string or null'],
    [{ openapi_version: '' }, 'openapi_version: must not be empty'],
    [{ owner: 'someone' }, 'unknown field "owner"'],
    [{ environment: 'development' }, 'unknown field "environment"'],
  ])('POST /apis with %j → 400', async (overrides, error) => {
    const { jwt } = await t.signup()
    expect(await t.call('/apis', { jwt, body: apiBody(overrides) })).toMatchObject({ status: 400, body: { error } })
  })

  test.each([
    [{ slug: 'dev' }, 'slug: "dev" is reserved'],
    [{ pay_to_address: null }, 'pay_to_address: expected an EVM address'],
    [{ id: 'api_other' }, 'unknown field "id"'],
    [{ name: ['x'] }, 'name: expected a string'],
  ])('PUT /apis/:id with %j → 400', async (body, error) => {
    const { jwt } = await t.signup()
    const api = (await t.call('/apis', { jwt, body: apiBody() })).body
    expect(await t.call(`/apis/${api.id}`, { jwt, method: 'PUT', body })).toMatchObject({
      status: 400,
      body: { error },
    })
  })

  test('no body → 400', async () => {
    const { jwt } = await t.signup()
    expect(await t.call('/apis', { jwt, method: 'POST' })).toMatchObject({
      status: 400,
      body: { error: 'expected a JSON body (Content-Type: application/json)' },
    })
  })
})

describe('slugs are unique per environment', () => {
  test('409 slug already exists, across sellers; the other environment may use it', async () => {
    const a = await t.signup()
    const b = await t.signup()
    const slug = uniqueSlug('shared')
    expect((await t.call('/apis', { jwt: a.jwt, body: apiBody({ slug }) })).status).toBe(201)
    expect(await t.call('/apis', { jwt: a.jwt, body: apiBody({ slug }) })).toMatchObject({
      status: 409,
      body: { error: 'slug already exists' },
    })
    expect(await t.call('/apis', { jwt: b.jwt, body: apiBody({ slug }) })).toMatchObject({
      status: 409,
      body: { error: 'slug already exists' },
    })
    expect((await t.call('/apis', { jwt: b.jwt, environment: 'development', body: apiBody({ slug }) })).status).toBe(
      201,
    )

    const other = (await t.call('/apis', { jwt: b.jwt, body: apiBody() })).body
    expect(await t.call(`/apis/${other.id}`, { jwt: b.jwt, method: 'PUT', body: { slug } })).toMatchObject({
      status: 409,
      body: { error: 'slug already exists' },
    })
    // Keeping one's own slug is no conflict.
    expect((await t.call(`/apis/${other.id}`, { jwt: b.jwt, method: 'PUT', body: { slug: other.slug } })).status).toBe(
      200,
    )
  })

  test('concurrent creates of one slug: one 201, the rest 409', async () => {
    const { jwt } = await t.signup()
    const slug = uniqueSlug('race')
    const results = await Promise.all(
      Array.from({ length: 6 }, () => t.call('/apis', { jwt, body: apiBody({ slug }) })),
    )
    expect(results.filter((r) => r.status === 201)).toHaveLength(1)
    for (const r of results.filter((r) => r.status !== 201))
      expect(r).toMatchObject({ status: 409, body: { error: 'slug already exists' } })
  })
})

describe('isolation', () => {
  test("another seller's API is 404 and not listed", async () => {
    const a = await t.signup()
    const b = await t.signup()
    const api = (await t.call('/apis', { jwt: a.jwt, body: apiBody() })).body
    const notFound = { status: 404, body: { error: expect.stringMatching(/^api not found: /) } }
    expect(await t.call(`/apis/${api.id}`, { jwt: b.jwt })).toMatchObject(notFound)
    expect(await t.call(`/apis/${api.id}`, { jwt: b.jwt, method: 'PUT', body: { name: 'mine' } })).toMatchObject(
      notFound,
    )
    expect(await t.call(`/apis/${api.id}`, { jwt: b.jwt, method: 'DELETE' })).toMatchObject(notFound)
    expect((await t.call('/apis', { jwt: b.jwt })).body.apis).toEqual([])
    expect((await t.call(`/apis/${api.id}`, { jwt: a.jwt })).body.name).toBe('Weather')
  })

  test('a development API is 404 with a production credential, and vice versa', async () => {
    const { jwt } = await t.signup()
    const dev = (await t.call('/apis', { jwt, environment: 'development', body: apiBody() })).body
    const prod = (await t.call('/apis', { jwt, body: apiBody() })).body
    const liveKey = await t.createKey(jwt, 'production', ['apis:read'])
    const sandboxKey = await t.createKey(jwt, 'development', ['apis:read'])

    expect(await t.call(`/apis/${dev.id}`, { jwt })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(await t.call(`/apis/${dev.id}`, { key: liveKey })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect((await t.call(`/apis/${dev.id}`, { jwt, environment: 'development' })).status).toBe(200)
    expect((await t.call(`/apis/${dev.id}`, { host: 'development', key: sandboxKey })).status).toBe(200)

    expect(await t.call(`/apis/${prod.id}`, { host: 'development', key: sandboxKey })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(await t.call(`/apis/${prod.id}`, { jwt, environment: 'development' })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect((await t.call(`/apis/${prod.id}`, { key: liveKey })).status).toBe(200)

    expect((await t.call('/apis', { jwt })).body.apis.map((a: any) => a.id)).toEqual([prod.id])
    expect((await t.call('/apis', { host: 'development', key: sandboxKey })).body.apis.map((a: any) => a.id)).toEqual([
      dev.id,
    ])
  })
})

describe('access', () => {
  test('scopes: apis:read reads, apis:write writes', async () => {
    const { jwt } = await t.signup()
    const api = (await t.call('/apis', { jwt, body: apiBody() })).body
    const reader = await t.createKey(jwt, 'production', ['apis:read'])
    const writer = await t.createKey(jwt, 'production', ['apis:write'])
    const other = await t.createKey(jwt, 'production', ['endpoints:read', 'endpoints:write'])
    const insufficient = { status: 403, body: { error: 'insufficient scope' } }

    expect(await t.call('/apis', { key: reader, body: apiBody() })).toMatchObject(insufficient)
    expect(await t.call(`/apis/${api.id}`, { key: reader, method: 'PUT', body: { name: 'x' } })).toMatchObject(
      insufficient,
    )
    expect(await t.call(`/apis/${api.id}`, { key: reader, method: 'DELETE' })).toMatchObject(insufficient)
    expect(await t.call('/apis', { key: writer })).toMatchObject(insufficient)
    expect(await t.call(`/apis/${api.id}`, { key: other })).toMatchObject(insufficient)

    expect((await t.call('/apis', { key: writer, body: apiBody() })).status).toBe(201)
    expect((await t.call(`/apis/${api.id}`, { key: writer, method: 'PUT', body: { name: 'by key' } })).body.name).toBe(
      'by key',
    )
    expect((await t.call('/apis', { key: reader })).body.apis).toHaveLength(2)
  })

  test('unverified accounts read but cannot write: 403 email verification required', async () => {
    const { jwt } = await t.signup({ verified: false })
    const needsVerification = { status: 403, body: { error: 'email verification required' } }
    expect(await t.call('/apis', { jwt, body: apiBody() })).toMatchObject(needsVerification)
    expect(await t.call('/apis', { jwt })).toMatchObject({ status: 200, body: { apis: [] } })
    expect(await t.call('/apis/api_nothing', { jwt, method: 'PUT', body: { name: 'x' } })).toMatchObject(
      needsVerification,
    )
    expect(await t.call('/apis/api_nothing', { jwt, method: 'DELETE' })).toMatchObject(needsVerification)
  })

  test('no credentials → 401 unauthorized', async () => {
    expect(await t.call('/apis')).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
    expect(await t.call('/apis', { body: apiBody() })).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
  })
})
