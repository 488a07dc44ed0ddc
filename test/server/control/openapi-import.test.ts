import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../helpers/control.js'

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/openapi/${name}`, import.meta.url), 'utf8')
const petstore = fixture('petstore-3.0.yaml')
const weather = fixture('weather-3.1.json')
const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const liveAccepts = [{ scheme: 'exact', network: 'eip155:8453', asset: usdc, amount: '1000' }]

/** An upstream that counts requests: remote $refs must never reach it; inference probes may. */
let upstream: Server
let upstreamUrl: string
let hits: string[] = []

let t: TestServer
beforeAll(async () => {
  upstream = createServer((req, res) => {
    hits.push(req.url!)
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"type":"object"}')
  })
  upstream.listen(0, '127.0.0.1')
  await new Promise((resolve) => upstream.once('listening', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  t = await startTestServer()
})
afterAll(async () => {
  upstream?.closeAllConnections()
  upstream?.close()
  await t?.stop()
})

let slugs = 0
async function createApi(jwt: string, environment: 'production' | 'development' = 'production') {
  const body = {
    name: 'Pets',
    slug: `oai-${process.pid}-${++slugs}`,
    upstream_base_url: upstreamUrl,
    pay_to_mode: 'user_wallet',
    pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  }
  const { status, body: api } = await t.call('/apis', { jwt, environment, body })
  expect(status).toBe(201)
  return api
}

const petSchema = {
  allOf: [
    {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string' },
        tag: { type: ['string', 'null'] },
        age: { type: 'integer', exclusiveMinimum: 0 },
      },
    },
    { type: 'object', required: ['id'], properties: { id: { type: 'integer', format: 'int64' } } },
  ],
}

describe('POST /openapi/parse', () => {
  test('OpenAPI 3.0 YAML: $refs inlined, 3.0 keywords converted, circular refs cut', async () => {
    const { jwt } = await t.signup()
    const { status, body } = await t.call('/openapi/parse', { jwt, body: { spec: petstore } })
    expect(status).toBe(200)
    expect(body.openapi_version).toBe('3.0.3')
    expect(body.title).toBe('Petstore')
    expect(body.operations.map((o: any) => `${o.method} ${o.path_pattern}`)).toEqual([
      'GET /pets',
      'POST /pets',
      'GET /pets/{petId}',
      'DELETE /pets/{petId}',
      'GET /categories/{categoryId}',
    ])
    const [list, create, show, remove, category] = body.operations
    expect(list).toEqual({
      method: 'GET',
      path_pattern: '/pets',
      summary: 'List pets',
      description: null,
      operation_id: 'listPets',
      request_schema: null,
      response_schema: { type: 'array', items: petSchema },
    })
    expect(create).toMatchObject({
      summary: 'Add a pet',
      description: 'Adds a pet to the store.',
      request_schema: petSchema.allOf[0],
      response_schema: petSchema,
    })
    expect(show).toMatchObject({ operation_id: 'showPet', request_schema: null, response_schema: petSchema })
    expect(remove).toMatchObject({ operation_id: 'deletePet', request_schema: null, response_schema: null })
    expect(category.response_schema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, parent: { $comment: 'circular $ref, not expanded' } },
    })
  })

  test('OpenAPI 3.1 JSON: first 2xx when there is no 200; non-JSON responses have no schema', async () => {
    const { jwt } = await t.signup()
    const { body } = await t.call('/openapi/parse', { jwt, body: { spec: weather } })
    expect(body).toMatchObject({ openapi_version: '3.1.0', title: 'Weather' })
    const [forecast, alert, status] = body.operations
    const temperature = { type: 'number', exclusiveMinimum: -273.15 }
    expect(forecast).toMatchObject({
      method: 'GET',
      path_pattern: '/forecast/{city}',
      operation_id: 'forecast',
      summary: 'Forecast for a city',
    })
    expect(forecast.response_schema.properties.days.items).toEqual({
      type: 'object',
      properties: {
        date: { type: 'string', format: 'date' },
        high: temperature,
        low: temperature,
        summary: { type: ['string', 'null'] },
      },
    })
    expect(alert).toMatchObject({
      method: 'POST',
      request_schema: {
        type: 'object',
        required: ['city', 'above'],
        properties: { city: { type: 'string' }, above: temperature },
      },
      response_schema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    })
    expect(status).toMatchObject({ path_pattern: '/status', request_schema: null, response_schema: null })
  })

  test('external and remote $refs are never fetched', async () => {
    const { jwt } = await t.signup()
    hits = []
    const spec = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'refs', version: '1' },
      paths: {
        '/a': {
          get: {
            responses: {
              '200': {
                description: 'x',
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      properties: {
                        remote: { $ref: `${upstreamUrl}/schema.json` },
                        file: { $ref: './local.json#/Thing' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    })
    const { status, body } = await t.call('/openapi/parse', { jwt, body: { spec } })
    expect(status).toBe(200)
    expect(hits).toEqual([])
    expect(body.operations[0].response_schema.properties).toEqual({
      remote: { $comment: `unresolved $ref "${upstreamUrl}/schema.json"` },
      file: { $comment: 'unresolved $ref "./local.json#/Thing"' },
    })
  })

  test('a $ref bomb (shared refs doubling 40 times) is refused, not expanded', async () => {
    const { jwt } = await t.signup()
    const schemas: Record<string, unknown> = { L0: { type: 'string' } }
    for (let i = 1; i <= 40; i++)
      schemas[`L${i}`] = {
        type: 'array',
        prefixItems: [{ $ref: `#/components/schemas/L${i - 1}` }, { $ref: `#/components/schemas/L${i - 1}` }],
      }
    const response = {
      description: 'x',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/L40' } } },
    }
    const spec = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 'bomb', version: '1' },
      paths: { '/a': { get: { responses: { '200': response } } } },
      components: { schemas },
    })
    expect(await t.call('/openapi/parse', { jwt, body: { spec } })).toMatchObject({
      status: 400,
      body: { error: 'spec: schemas too large once $refs are expanded (more than 200000 nodes)' },
    })
  })

  test.each([
    [{ spec: 'openapi: [3.0' }, /^spec: not valid YAML or JSON: /],
    [{ spec: '"just a string"' }, /^spec: not an OpenAPI document \(expected a YAML or JSON object\)$/],
    [
      { spec: '{"swagger": "2.0", "paths": {}}' },
      /^spec: Swagger 2.0 is not supported; convert it to OpenAPI 3.0 or 3.1$/,
    ],
    [
      { spec: 'openapi: 4.0.0\npaths: {}' },
      /^spec: not an OpenAPI 3.0 or 3.1 document \(its "openapi" field must be 3.0.x or 3.1.x\)$/,
    ],
    [{ spec: 'info: {title: x}' }, /^spec: not an OpenAPI 3.0 or 3.1 document/],
    [{ spec: 'openapi: 3.1.0\npaths: [1]' }, /^spec: "paths" must be an object$/],
    [
      {
        spec: 'openapi: 3.1.0\npaths:\n  /a:\n    get:\n      responses:\n        "200": {$ref: "#/components/responses/Nope"}',
      },
      /^spec: cannot resolve \$ref: Missing \$ref pointer "#\/components\/responses\/Nope"/,
    ],
    [{ spec: 5 }, /^spec: expected the OpenAPI document as a string of YAML or JSON$/],
    [{}, /^spec: required$/],
    [{ spec: '' }, /^spec: must not be empty$/],
    [{ spec: 'openapi: 3.1.0', url: 'http://x' }, /^unknown field "url"$/],
  ])('%j → 400', async (body, error) => {
    const { jwt } = await t.signup()
    const response = await t.call('/openapi/parse', { jwt, body })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatch(error)
  })

  test('a body over 1 MB → 413', async () => {
    const { jwt } = await t.signup()
    expect(
      await t.call('/openapi/parse', { jwt, body: { spec: `openapi: 3.1.0\n# ${'x'.repeat(1_100_000)}` } }),
    ).toMatchObject({ status: 413, body: { error: 'body larger than 1mb' } })
  })

  test('access: openapi:read, no verified email needed', async () => {
    const { jwt } = await t.signup({ verified: false })
    expect((await t.call('/openapi/parse', { jwt, body: { spec: weather } })).status).toBe(200)
    const reader = await t.createKey((await t.signup()).jwt, 'development', ['openapi:read'])
    expect((await t.call('/openapi/parse', { host: 'development', key: reader, body: { spec: weather } })).status).toBe(
      200,
    )
    const other = await t.createKey((await t.signup()).jwt, 'production', ['endpoints:write', 'apis:read'])
    expect(await t.call('/openapi/parse', { key: other, body: { spec: weather } })).toMatchObject({
      status: 403,
      body: { error: 'insufficient scope' },
    })
    expect(await t.call('/openapi/parse', { body: { spec: weather } })).toMatchObject({
      status: 401,
      body: { error: 'unauthorized' },
    })
  })
})

describe('POST /apis/:apiId/openapi/import', () => {
  test('creates endpoints (openapi with schemas, inferred without) and is idempotent', async () => {
    const { jwt } = await t.signup()
    const api = await createApi(jwt)
    const { operations } = (await t.call('/openapi/parse', { jwt, body: { spec: petstore } })).body
    const first = await t.call(`/apis/${api.id}/openapi/import`, { jwt, body: { operations, accepts: liveAccepts } })
    expect(first.status).toBe(200)
    expect(first.body.skipped).toEqual([])
    const created = first.body.created
    expect(created.map((e: any) => [e.method, e.path_pattern, e.schema_source])).toEqual([
      ['GET', '/pets', 'openapi'],
      ['POST', '/pets', 'openapi'],
      ['GET', '/pets/{petId}', 'openapi'],
      ['DELETE', '/pets/{petId}', 'inferred'],
      ['GET', '/categories/{categoryId}', 'openapi'],
    ])
    expect(created[1]).toMatchObject({
      description: 'Adds a pet to the store.',
      request_schema: petSchema.allOf[0],
      response_schema: petSchema,
      accepts: [{ ...liveAccepts[0], max_timeout_seconds: 300 }],
    })
    expect(created[0].description).toBe('List pets')
    expect(created[3].request_schema.properties.path).toEqual({
      type: 'object',
      properties: { petId: { type: 'string' } },
      required: ['petId'],
      additionalProperties: false,
    })
    expect((await t.call(`/apis/${api.id}/endpoints`, { jwt })).body.endpoints).toEqual(created)

    const again = await t.call(`/apis/${api.id}/openapi/import`, { jwt, body: { operations, accepts: liveAccepts } })
    expect(again.body).toEqual({
      created: [],
      skipped: operations.map((o: any) => ({ method: o.method, path_pattern: o.path_pattern, reason: 'exists' })),
    })
    expect((await t.call(`/apis/${api.id}/endpoints`, { jwt })).body.endpoints).toHaveLength(5)
  })

  test('existing routes and repeats in the list are skipped; method and path_pattern are enough', async () => {
    const { jwt } = await t.signup()
    const api = await createApi(jwt, 'development')
    const dev = { jwt, environment: 'development' }
    const sandboxAccepts = [{ scheme: 'exact', network: 'eip155:845320402', asset: usdc, amount: '1' }]
    await t.call(`/apis/${api.id}/endpoints`, {
      ...dev,
      body: { method: 'GET', path_pattern: '/a', accepts: sandboxAccepts },
    })
    hits = []
    const { body } = await t.call(`/apis/${api.id}/openapi/import`, {
      ...dev,
      body: {
        operations: [
          { method: 'get', path_pattern: '/a' },
          { method: 'GET', path_pattern: '/b/{id}' },
          { method: 'GET', path_pattern: '/b/{id}' },
        ],
        accepts: sandboxAccepts,
      },
    })
    expect(body.created).toHaveLength(1)
    expect(body.created[0]).toMatchObject({
      method: 'GET',
      path_pattern: '/b/{id}',
      schema_source: 'inferred',
      response_schema: { type: 'object', properties: { type: { type: 'string' } }, required: ['type'] },
    })
    expect(body.created[0].accepts[0].extra).toEqual({ name: 'USDC', version: '2', assetTransferMethod: 'eip3009' })
    expect(hits).toEqual(['/b/1'])
    expect(body.skipped).toEqual([
      { method: 'GET', path_pattern: '/a', reason: 'exists' },
      { method: 'GET', path_pattern: '/b/{id}', reason: 'exists' },
    ])
  })

  test('validation: nothing is created when one operation or accept is bad', async () => {
    const { jwt } = await t.signup()
    const api = await createApi(jwt)
    const url = `/apis/${api.id}/openapi/import`
    const good = { method: 'GET', path_pattern: '/ok' }
    const cases: [unknown, string][] = [
      [
        { operations: [good, { method: 'GET', path_pattern: '/pets/{pet-id}' }], accepts: liveAccepts },
        'operations.1.path_pattern: invalid parameter name "pet-id": letters, digits and "_", not starting with a digit',
      ],
      [
        { operations: [good, { method: 'TRACE', path_pattern: '/x' }], accepts: liveAccepts },
        'operations.1.method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS',
      ],
      [
        { operations: [{ ...good, response_schema: { type: 1 } }], accepts: liveAccepts },
        'operations.0.response_schema: not a valid JSON Schema: /type must be equal to one of the allowed values',
      ],
      [{ operations: [], accepts: liveAccepts }, 'operations: at least one operation'],
      [{ operations: [good] }, 'accepts: required'],
      [
        { operations: [good], accepts: [{ ...liveAccepts[0], amount: '-1' }] },
        'accepts.0.amount: must be a positive integer of atomic units without leading zeros, below 2^256',
      ],
      [{ operations: [{ ...good, extra: 1 }], accepts: liveAccepts }, 'unknown field "extra"'],
    ]
    for (const [body, error] of cases)
      expect(await t.call(url, { jwt, body }), error).toMatchObject({ status: 400, body: { error } })
    const dev = await createApi(jwt, 'development')
    expect(
      await t.call(`/apis/${dev.id}/openapi/import`, {
        jwt,
        environment: 'development',
        body: { operations: [good], accepts: liveAccepts },
      }),
    ).toMatchObject({
      status: 400,
      body: { error: 'accepts.0.network: a development API takes only network "eip155:845320402" (the Sandbox chain)' },
    })
    expect((await t.call(`/apis/${api.id}/endpoints`, { jwt })).body.endpoints).toEqual([])
  })

  test('isolation and access: openapi:read and endpoints:write, verified email, own API of this environment', async () => {
    const { jwt } = await t.signup()
    const api = await createApi(jwt)
    const body = { operations: [{ method: 'GET', path_pattern: '/x' }], accepts: liveAccepts }
    const url = `/apis/${api.id}/openapi/import`
    const insufficient = { status: 403, body: { error: 'insufficient scope' } }
    expect(await t.call(url, { key: await t.createKey(jwt, 'production', ['openapi:read']), body })).toMatchObject(
      insufficient,
    )
    expect(await t.call(url, { key: await t.createKey(jwt, 'production', ['endpoints:write']), body })).toMatchObject(
      insufficient,
    )

    const unverified = await t.signup({ verified: false })
    expect(await t.call(url, { jwt: unverified.jwt, body })).toMatchObject({
      status: 403,
      body: { error: 'email verification required' },
    })
    const other = await t.signup()
    expect(await t.call(url, { jwt: other.jwt, body })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(await t.call(url, { jwt, environment: 'development', body })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })

    const both = await t.createKey(jwt, 'production', ['openapi:read', 'endpoints:write'])
    expect((await t.call(url, { key: both, body })).body.created).toHaveLength(1)
  })
})
