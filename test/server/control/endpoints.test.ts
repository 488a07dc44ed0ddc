import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../../helpers/control.js'

const usdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const comment = 'svc inferred request: properties.path = path parameters, properties.body = JSON body'
const liveAccept = { scheme: 'exact', network: 'eip155:8453', asset: usdc, amount: '100000' }
const sandboxAccept = { scheme: 'exact', network: 'eip155:845320402', asset: usdc.toLowerCase(), amount: '100000' }

/** A tiny upstream: answers by path, records what it was asked. */
let upstream: Server
let upstreamUrl: string
const asked: string[] = []
const weather = {
  city: 'Paris',
  temp: 21.5,
  humidity: 60,
  tags: ['mild', 'dry'],
  windy: false,
  alert: null,
  station: { id: 'PAR', lat: 48.85 },
}

let t: TestServer
beforeAll(async () => {
  upstream = createServer((req, res) => {
    asked.push(req.url!)
    if (req.url!.startsWith('/weather/'))
      return void res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(weather))
    if (req.url === '/files/')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('[{"name":"a.txt","size":12}]')
    if (req.url === '/html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<p>hi</p>')
    if (req.url === '/broken')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"truncated":')
    if (req.url === '/missing')
      return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"nope"}')
    if (req.url === '/huge')
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ blob: 'x'.repeat(300 * 1024) }))
    if (req.url === '/huge-chunked') {
      res.writeHead(200, { 'content-type': 'application/json' })
      for (let i = 0; i < 40; i++) res.write(`${i === 0 ? '[' : ','}"${'y'.repeat(8 * 1024)}"`)
      return void res.end(']')
    }
    if (req.url === '/slow')
      return void setTimeout(
        () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}'),
        4000,
      ).unref()
    res.writeHead(404).end()
  })
  upstream.listen(0, '127.0.0.1')
  await new Promise((resolve) => upstream.once('listening', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
  // The probe's deadline, shortened: '/slow' still answers long after it, without the test waiting out 2 s.
  t = await startTestServer({ schemaProbeTimeoutMs: 500 })
})
afterAll(async () => {
  upstream?.closeAllConnections()
  upstream?.close()
  await t?.stop()
})

let slugs = 0
async function seller(options: { verified?: boolean } = {}) {
  const { jwt } = await t.signup(options)
  return jwt
}
async function createApi(
  jwt: string,
  environment: 'production' | 'development' = 'production',
  upstreamBase = upstreamUrl,
) {
  const body = {
    name: 'Weather',
    slug: `ep-${process.pid}-${++slugs}`,
    upstream_base_url: upstreamBase,
    pay_to_mode: 'user_wallet',
    pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  }
  const { status, body: api } = await t.call('/apis', { jwt, environment, body })
  expect(status).toBe(201)
  return api
}

describe('CRUD', () => {
  test('create (inferred schemas from a real upstream), read, list, update, delete', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const created = await t.call(`/apis/${api.id}/endpoints`, {
      jwt,
      body: { method: 'get', path_pattern: '/weather/{city}', accepts: [liveAccept], description: 'Weather now' },
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({
      api_id: api.id,
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [{ ...liveAccept, max_timeout_seconds: 300 }],
      schema_source: 'inferred',
      enabled: true,
      description: 'Weather now',
      ttl: null,
      expires_at: null,
    })
    expect(created.body.id).toMatch(/^ep_/)
    expect(asked).toContain('/weather/1')
    expect(created.body.request_schema).toEqual({
      type: 'object',
      $comment: comment,
      properties: {
        path: {
          type: 'object',
          properties: { city: { type: 'string' } },
          required: ['city'],
          additionalProperties: false,
        },
      },
      required: ['path'],
    })
    expect(created.body.response_schema).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string' },
        temp: { type: 'number' },
        humidity: { type: 'integer' },
        tags: { type: 'array', items: { type: 'string' } },
        windy: { type: 'boolean' },
        alert: { type: 'null' },
        station: {
          type: 'object',
          properties: { id: { type: 'string' }, lat: { type: 'number' } },
          required: ['id', 'lat'],
        },
      },
      required: ['city', 'temp', 'humidity', 'tags', 'windy', 'alert', 'station'],
    })
    const base = `/apis/${api.id}/endpoints`
    expect(await t.call(`${base}/${created.body.id}`, { jwt })).toMatchObject({ status: 200, body: created.body })
    expect((await t.call(base, { jwt })).body).toEqual({ endpoints: [created.body] })

    const updated = await t.call(`${base}/${created.body.id}`, {
      jwt,
      method: 'PUT',
      body: { enabled: false, description: null, accepts: [{ ...liveAccept, amount: '5', max_timeout_seconds: 60 }] },
    })
    expect(updated.status).toBe(200)
    expect(updated.body).toMatchObject({
      enabled: false,
      description: null,
      accepts: [{ ...liveAccept, amount: '5', max_timeout_seconds: 60 }],
      schema_source: 'inferred',
    })
    expect(updated.body.response_schema).toEqual(created.body.response_schema)
    expect((await t.call(`${base}/${created.body.id}`, { jwt })).body).toEqual(updated.body)

    expect(await t.call(`${base}/${created.body.id}`, { jwt, method: 'DELETE' })).toMatchObject({
      status: 200,
      body: { id: created.body.id, deleted: true },
    })
    expect(await t.call(`${base}/${created.body.id}`, { jwt })).toMatchObject({
      status: 404,
      body: { error: 'endpoint not found' },
    })
    expect(await t.call(`${base}/${created.body.id}`, { jwt, method: 'DELETE' })).toMatchObject({
      status: 404,
      body: { error: 'endpoint not found' },
    })
    expect((await t.call(base, { jwt })).body.endpoints).toEqual([])
  })

  test('409 endpoint already exists: the same method and path, on create and on update', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const base = `/apis/${api.id}/endpoints`
    expect(
      (await t.call(base, { jwt, body: { method: 'POST', path_pattern: '/a', accepts: [liveAccept] } })).status,
    ).toBe(201)
    expect(
      await t.call(base, { jwt, body: { method: 'post', path_pattern: '/a', accepts: [liveAccept] } }),
    ).toMatchObject({ status: 409, body: { error: 'endpoint already exists' } })
    const other = await t.call(base, { jwt, body: { method: 'PUT', path_pattern: '/a', accepts: [liveAccept] } })
    expect(other.status).toBe(201)
    expect(await t.call(`${base}/${other.body.id}`, { jwt, method: 'PUT', body: { method: 'POST' } })).toMatchObject({
      status: 409,
      body: { error: 'endpoint already exists' },
    })
  })
})

describe('validation', () => {
  const ok = { method: 'GET', path_pattern: '/ok', accepts: [liveAccept] }
  test.each([
    [{ method: 'TRACE' }, 'method: must be one of GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS'],
    [{ method: undefined }, 'method: required'],
    [{ path_pattern: 'weather' }, 'path_pattern: must start with "/"'],
    [{ path_pattern: '/a//b' }, 'path_pattern: empty segment ("//")'],
    [{ path_pattern: '/a/{id}/{id}' }, 'path_pattern: duplicate parameter "{id}"'],
    [{ path_pattern: '/a/x{id}' }, 'path_pattern: a parameter must be a whole segment like "{id}", not "x{id}"'],
    [
      { path_pattern: '/a/{1st}' },
      'path_pattern: invalid parameter name "1st": letters, digits and "_", not starting with a digit',
    ],
    [{ path_pattern: '/a*/b' }, 'path_pattern: "*" is allowed only as the last character'],
    [{ path_pattern: '/a/{id}*' }, 'path_pattern: "*" must follow a literal segment or "/", not a parameter'],
    [
      { path_pattern: '/a?b=1' },
      `path_pattern: invalid character in segment "a?b=1" (letters, digits and -._~!$&'()+,;=:@% are allowed)`,
    ],
    [{ accepts: [] }, 'accepts: at least one accept option'],
    [{ accepts: Array(11).fill(liveAccept) }, 'accepts: at most 10 accept options'],
    [{ accepts: undefined }, 'accepts: required'],
    [
      { accepts: [{ ...liveAccept, scheme: 'deferred' }] },
      'accepts.0.scheme: must be one of exact, upto, batch-settlement, auth-capture',
    ],
    [
      { accepts: [{ ...liveAccept, extra: { assetTransferMethod: 'permit3' } }] },
      'accepts.0.extra.assetTransferMethod: must be one of eip3009, permit2',
    ],
    [
      { accepts: [{ ...liveAccept, scheme: 'upto', extra: { assetTransferMethod: 'eip3009' } }] },
      'accepts.0.extra.assetTransferMethod: the upto scheme pays through Permit2 only: use "permit2" or leave it out',
    ],
    [
      { accepts: [{ ...liveAccept, network: 'base' }] },
      'accepts.0.network: must be a CAIP-2 EVM network id like "eip155:8453"',
    ],
    [
      { accepts: [{ ...liveAccept, asset: 'USDC' }] },
      'accepts.0.asset: not an EVM address (0x followed by 40 hex digits)',
    ],
    [
      { accepts: [{ ...liveAccept, amount: 100 }] },
      'accepts.0.amount: expected a string of atomic units, e.g. "100000"',
    ],
    [
      { accepts: [{ ...liveAccept, amount: '0' }] },
      'accepts.0.amount: must be a positive integer of atomic units without leading zeros, below 2^256',
    ],
    [
      { accepts: [{ ...liveAccept, amount: '0100' }] },
      'accepts.0.amount: must be a positive integer of atomic units without leading zeros, below 2^256',
    ],
    [
      { accepts: [{ ...liveAccept, amount: '1.5' }] },
      'accepts.0.amount: must be a positive integer of atomic units without leading zeros, below 2^256',
    ],
    [
      { accepts: [{ ...liveAccept, amount: (2n ** 256n).toString() }] },
      'accepts.0.amount: must be a positive integer of atomic units without leading zeros, below 2^256',
    ],
    [{ accepts: [{ ...liveAccept, max_timeout_seconds: 0 }] }, 'accepts.0.max_timeout_seconds: between 1 and 86400'],
    [
      { accepts: [{ ...liveAccept, max_timeout_seconds: 1.5 }] },
      'accepts.0.max_timeout_seconds: expected an integer number of seconds',
    ],
    [{ accepts: [{ ...liveAccept, extra: 'USDC' }] }, 'accepts.0.extra: expected an object'],
    [{ accepts: [{ ...liveAccept, payTo: '0x0' }] }, 'unknown field "payTo"'],
    [
      { response_schema: { type: 'wat' } },
      'response_schema: not a valid JSON Schema: /type must be equal to one of the allowed values',
    ],
    [
      { request_schema: { properties: { a: 5 } } },
      'request_schema: not a valid JSON Schema: /properties/a must be object,boolean',
    ],
    [{ request_schema: [] }, 'request_schema: expected a JSON Schema object or null'],
    [
      { request_schema: { $schema: 'http://json-schema.org/draft-04/schema#' } },
      'request_schema: not a valid JSON Schema: unsupported $schema "http://json-schema.org/draft-04/schema#" (2020-12, draft-07 and draft-06 are)',
    ],
    [{ ttl: 0 }, 'ttl: between 1 and 31536000 seconds'],
    [{ ttl: 31_536_001 }, 'ttl: between 1 and 31536000 seconds'],
    [{ ttl: '60' }, 'ttl: expected an integer number of seconds'],
    [{ enabled: 'yes' }, 'enabled: expected true or false'],
    [{ schema_source: 'manual' }, 'unknown field "schema_source"'],
    [{ clear_schemas: true }, 'unknown field "clear_schemas"'],
  ])('POST with %j → 400', async (overrides, error) => {
    const jwt = await seller()
    const api = await createApi(jwt)
    expect(await t.call(`/apis/${api.id}/endpoints`, { jwt, body: { ...ok, ...overrides } })).toMatchObject({
      status: 400,
      body: { error },
    })
  })

  test('an auth-capture accept: its extra is kept as given; each of its rules is a 400 naming the field', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const escrow = { ...liveAccept, scheme: 'auth-capture' }
    const post = (extra: Record<string, unknown> | undefined, more: Record<string, unknown> = {}) =>
      t.call(`/apis/${api.id}/endpoints`, {
        jwt,
        body: {
          ...ok,
          path_pattern: `/escrow/${Math.random().toString(36).slice(2)}`,
          accepts: [{ ...escrow, ...more, extra }],
        },
      })
    const extra = {
      paymentFlow: 'escrow',
      captureMode: 'deferred',
      captureDeadlineSeconds: 3600,
      refundDeadlineSeconds: 86_400,
    }
    const made = await post(extra)
    expect(made.status).toBe(201)
    expect(made.body.accepts).toEqual([{ ...escrow, max_timeout_seconds: 300, extra }])
    expect((await post(undefined)).status).toBe(201)
    expect((await post({ paymentFlow: 'authorization', assetTransferMethod: 'permit2' })).status).toBe(201)
    for (const [bad, error] of [
      [
        { paymentFlow: 'upfront' },
        'accepts.0.extra.paymentFlow: auth-capture collects before the upstream is called anyway: use "escrow" (a hold, the default) or "authorization" (a terminal charge)',
      ],
      [{ captureMode: 'later' }, 'accepts.0.extra.captureMode: must be one of sync, deferred'],
      [
        { paymentFlow: 'authorization', captureMode: 'deferred' },
        'accepts.0.extra.captureMode: is for the escrow flow: leave it out with paymentFlow "authorization"',
      ],
      [
        { captureDeadlineSeconds: 60 },
        'accepts.0.extra.captureDeadlineSeconds: must be an integer number of seconds between 420 (max_timeout_seconds + 120) and 31536000',
      ],
      [
        { captureDeadlineSeconds: 7200, refundDeadlineSeconds: 3600 },
        'accepts.0.extra.refundDeadlineSeconds: must be at least captureDeadlineSeconds (7200): refunds follow captures',
      ],
      [{ maxFeeBps: 100 }, 'accepts.0.extra.feeRecipient: is required (a non-zero address) when maxFeeBps is above 0'],
      [
        { captureDeadline: 1_900_000_000 },
        "accepts.0.extra.captureDeadline: is written by the 402 from captureDeadlineSeconds on svc's clock: give captureDeadlineSeconds",
      ],
      [
        { receiverAuthorizer: usdc },
        'accepts.0.extra.receiverAuthorizer: is the key svc keeps for the seller to sign captures, voids and refunds: leave it out',
      ],
      [
        { operatorType: 'custom' },
        'accepts.0.extra.operatorType: must be "delegated" (svc\'s facilitator is the operator) or left out',
      ],
      [
        { autoCapture: true },
        'accepts.0.extra.autoCapture: was removed in x402\'s auth-capture v1.1: use paymentFlow ("authorization" for a terminal charge)',
      ],
    ] as const)
      expect(await post(bad), JSON.stringify(bad)).toMatchObject({ status: 400, body: { error } })
    expect(await post({ captureDeadlineSeconds: 900 }, { max_timeout_seconds: 900 })).toMatchObject({
      status: 400,
      body: {
        error:
          'accepts.0.extra.captureDeadlineSeconds: must be an integer number of seconds between 1020 (max_timeout_seconds + 120) and 31536000',
      },
    })
    // escrow is auth-capture's flow, not exact's.
    expect(
      await t.call(`/apis/${api.id}/endpoints`, {
        jwt,
        body: { ...ok, path_pattern: '/exact-escrow', accepts: [{ ...liveAccept, extra: { paymentFlow: 'escrow' } }] },
      }),
    ).toMatchObject({
      status: 400,
      body: {
        error:
          'accepts.0.extra.paymentFlow: escrow is the auth-capture scheme\'s flow: use scheme "auth-capture", or "authorization" (the default) or "upfront" here',
      },
    })
  })

  test('path patterns that are fine; draft-07 schemas are accepted', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    for (const path_pattern of [
      '/',
      '/files/*',
      '/files*',
      '/*',
      '/v1/users/{user_id}/posts/{postId}',
      '/a-b/c.d/~e/',
      '/x:y@z',
    ])
      expect(
        (await t.call(`/apis/${api.id}/endpoints`, { jwt, body: { ...ok, method: 'DELETE', path_pattern } })).status,
        path_pattern,
      ).toBe(201)
    const draft7 = { $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }] }
    expect(
      (await t.call(`/apis/${api.id}/endpoints`, { jwt, body: { ...ok, response_schema: draft7 } })).body,
    ).toMatchObject({ response_schema: draft7, schema_source: 'manual' })
  })

  test('PUT: ttl only at creation; schemas and clear_schemas not together; unknown fields', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const ep = (await t.call(`/apis/${api.id}/endpoints`, { jwt, body: ok })).body
    const url = `/apis/${api.id}/endpoints/${ep.id}`
    expect(await t.call(url, { jwt, method: 'PUT', body: { ttl: 60 } })).toMatchObject({
      status: 400,
      body: { error: 'ttl can only be set at creation' },
    })
    expect(
      await t.call(url, { jwt, method: 'PUT', body: { clear_schemas: true, response_schema: { type: 'object' } } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'clear_schemas: give schemas or clear_schemas, not both' },
    })
    expect(await t.call(url, { jwt, method: 'PUT', body: { expires_at: null } })).toMatchObject({
      status: 400,
      body: { error: 'unknown field "expires_at"' },
    })
    expect(await t.call(url, { jwt, method: 'PUT', body: { path_pattern: 'nope' } })).toMatchObject({
      status: 400,
      body: { error: 'path_pattern: must start with "/"' },
    })
  })
})

describe('ttl', () => {
  test('ttl sets expires_at; an expired endpoint is gone', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const before = Date.now()
    const ep = await t.call(`/apis/${api.id}/endpoints`, {
      jwt,
      body: { method: 'POST', path_pattern: '/once', accepts: [liveAccept], ttl: 60 },
    })
    expect(ep.body.ttl).toBe(60)
    const expires = Date.parse(ep.body.expires_at)
    expect(expires).toBeGreaterThanOrEqual(before + 60_000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 60_000)

    await t.server.database.db
      .updateTable('endpoints')
      .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', ep.body.id)
      .execute()
    expect((await t.call(`/apis/${api.id}/endpoints`, { jwt })).body.endpoints).toEqual([])
    expect(await t.call(`/apis/${api.id}/endpoints/${ep.body.id}`, { jwt })).toMatchObject({
      status: 404,
      body: { error: 'endpoint not found' },
    })
    // Its route is free again.
    expect(
      (
        await t.call(`/apis/${api.id}/endpoints`, {
          jwt,
          body: { method: 'POST', path_pattern: '/once', accepts: [liveAccept] },
        })
      ).status,
    ).toBe(201)
  })
})

describe('Sandbox accepts', () => {
  test('a development API takes only the Sandbox chain and USDC; extra is filled in', async () => {
    const jwt = await seller()
    const api = await createApi(jwt, 'development')
    const base = `/apis/${api.id}/endpoints`
    const dev = { jwt, environment: 'development' }
    expect(
      await t.call(base, { ...dev, body: { method: 'GET', path_pattern: '/a', accepts: [sandboxAccept, liveAccept] } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'accepts.1.network: a development API takes only network "eip155:845320402" (the Sandbox chain)' },
    })
    expect(
      await t.call(base, {
        ...dev,
        body: {
          method: 'GET',
          path_pattern: '/a',
          accepts: [{ ...sandboxAccept, asset: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' }],
        },
      }),
    ).toMatchObject({
      status: 400,
      body: { error: `accepts.0.asset: a development API takes only the Sandbox USDC ${usdc}` },
    })

    const created = await t.call(base, {
      ...dev,
      body: {
        method: 'GET',
        path_pattern: '/a',
        accepts: [sandboxAccept, { ...sandboxAccept, amount: '7', extra: { name: 'USD Coin' } }],
      },
    })
    expect(created.status).toBe(201)
    expect(created.body.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:845320402',
        asset: usdc,
        amount: '100000',
        max_timeout_seconds: 300,
        extra: { name: 'USDC', version: '2', assetTransferMethod: 'eip3009' },
      },
      {
        scheme: 'exact',
        network: 'eip155:845320402',
        asset: usdc,
        amount: '7',
        max_timeout_seconds: 300,
        extra: { name: 'USD Coin', version: '2', assetTransferMethod: 'eip3009' },
      },
    ])
    expect(
      await t.call(`${base}/${created.body.id}`, { ...dev, method: 'PUT', body: { accepts: [liveAccept] } }),
    ).toMatchObject({
      status: 400,
      body: { error: 'accepts.0.network: a development API takes only network "eip155:845320402" (the Sandbox chain)' },
    })
    // A production API takes other networks and keeps accepts as given (asset checksummed).
    const prod = await createApi(jwt)
    const live = await t.call(`/apis/${prod.id}/endpoints`, {
      jwt,
      body: { method: 'GET', path_pattern: '/a', accepts: [{ ...liveAccept, asset: usdc.toLowerCase() }] },
    })
    expect(live.body.accepts).toEqual([{ ...liveAccept, max_timeout_seconds: 300 }])
  })
})

describe('schema_source', () => {
  test('inferred → manual (PUT with schemas) → inferred (clear_schemas)', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const ep = (
      await t.call(`/apis/${api.id}/endpoints`, {
        jwt,
        body: { method: 'GET', path_pattern: '/weather/{city}', accepts: [liveAccept] },
      })
    ).body
    expect(ep.schema_source).toBe('inferred')
    const url = `/apis/${api.id}/endpoints/${ep.id}`
    const manualSchema = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] }
    const manual = await t.call(url, { jwt, method: 'PUT', body: { response_schema: manualSchema } })
    expect(manual.body).toMatchObject({
      schema_source: 'manual',
      response_schema: manualSchema,
      request_schema: ep.request_schema,
    })
    const nulled = await t.call(url, { jwt, method: 'PUT', body: { request_schema: null } })
    expect(nulled.body).toMatchObject({ schema_source: 'manual', request_schema: null, response_schema: manualSchema })
    // A manual endpoint that moves keeps its schemas.
    const moved = await t.call(url, { jwt, method: 'PUT', body: { path_pattern: '/weather/{town}' } })
    expect(moved.body).toMatchObject({ schema_source: 'manual', request_schema: null, response_schema: manualSchema })

    const cleared = await t.call(url, { jwt, method: 'PUT', body: { clear_schemas: true } })
    expect(cleared.body).toMatchObject({ schema_source: 'inferred', response_schema: ep.response_schema })
    expect(cleared.body.request_schema.properties.path.required).toEqual(['town'])
  })

  test('created with a schema → manual; an inferred endpoint that moves is inferred again', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const base = `/apis/${api.id}/endpoints`
    const given = await t.call(base, {
      jwt,
      body: { method: 'POST', path_pattern: '/m', accepts: [liveAccept], request_schema: { type: 'object' } },
    })
    expect(given.body).toMatchObject({
      schema_source: 'manual',
      request_schema: { type: 'object' },
      response_schema: null,
    })

    const ep = (await t.call(base, { jwt, body: { method: 'GET', path_pattern: '/html', accepts: [liveAccept] } })).body
    expect(ep).toMatchObject({ schema_source: 'inferred', request_schema: null, response_schema: {} })
    const moved = await t.call(`${base}/${ep.id}`, { jwt, method: 'PUT', body: { path_pattern: '/files/*' } })
    expect(moved.body).toMatchObject({
      schema_source: 'inferred',
      path_pattern: '/files/*',
      response_schema: {
        type: 'array',
        items: {
          type: 'object',
          properties: { name: { type: 'string' }, size: { type: 'integer' } },
          required: ['name', 'size'],
        },
      },
    })
    expect(asked).toContain('/files/')
  })

  test('inference of other methods: body envelope; a failed probe falls back to {}', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const base = `/apis/${api.id}/endpoints`
    const post = await t.call(base, {
      jwt,
      body: { method: 'PATCH', path_pattern: '/items/{id}', accepts: [liveAccept] },
    })
    expect(post.body).toMatchObject({
      schema_source: 'inferred',
      request_schema: {
        type: 'object',
        $comment: comment,
        properties: {
          path: {
            type: 'object',
            properties: { id: { type: 'string' } },
            required: ['id'],
            additionalProperties: false,
          },
          body: { type: 'object' },
        },
        required: ['path', 'body'],
      },
      response_schema: {},
    })
    expect(
      (await t.call(base, { jwt, body: { method: 'HEAD', path_pattern: '/h', accepts: [liveAccept] } })).body,
    ).toMatchObject({ request_schema: null, response_schema: null })
    for (const path_pattern of ['/broken', '/missing', '/huge', '/huge-chunked'])
      expect(
        (await t.call(base, { jwt, body: { method: 'GET', path_pattern, accepts: [liveAccept] } })).body
          .response_schema,
        path_pattern,
      ).toEqual({})

    const started = Date.now()
    expect(
      (await t.call(base, { jwt, body: { method: 'GET', path_pattern: '/slow', accepts: [liveAccept] } })).body
        .response_schema,
    ).toEqual({})
    expect(Date.now() - started).toBeLessThan(3500)

    const gone = await createApi(jwt, 'production', 'http://127.0.0.1:1')
    expect(
      (
        await t.call(`/apis/${gone.id}/endpoints`, {
          jwt,
          body: { method: 'GET', path_pattern: '/x', accepts: [liveAccept] },
        })
      ).body,
    ).toMatchObject({ schema_source: 'inferred', response_schema: {} })
  })
})

describe('isolation and access', () => {
  test("another seller's API and endpoints are 404", async () => {
    const a = await seller()
    const b = await seller()
    const api = await createApi(a)
    const ep = (
      await t.call(`/apis/${api.id}/endpoints`, {
        jwt: a,
        body: { method: 'POST', path_pattern: '/x', accepts: [liveAccept] },
      })
    ).body
    const apiNotFound = { status: 404, body: { error: expect.stringMatching(/^api not found: /) } }
    expect(await t.call(`/apis/${api.id}/endpoints`, { jwt: b })).toMatchObject(apiNotFound)
    expect(await t.call(`/apis/${api.id}/endpoints/${ep.id}`, { jwt: b })).toMatchObject(apiNotFound)
    expect(
      await t.call(`/apis/${api.id}/endpoints/${ep.id}`, { jwt: b, method: 'PUT', body: { enabled: false } }),
    ).toMatchObject(apiNotFound)
    expect(await t.call(`/apis/${api.id}/endpoints/${ep.id}`, { jwt: b, method: 'DELETE' })).toMatchObject(apiNotFound)
    expect(
      await t.call(`/apis/${api.id}/endpoints`, {
        jwt: b,
        body: { method: 'GET', path_pattern: '/y', accepts: [liveAccept] },
      }),
    ).toMatchObject(apiNotFound)
    // B's own API does not reach A's endpoint either.
    const own = await createApi(b)
    expect(await t.call(`/apis/${own.id}/endpoints/${ep.id}`, { jwt: b })).toMatchObject({
      status: 404,
      body: { error: 'endpoint not found' },
    })
    expect((await t.call(`/apis/${own.id}/endpoints`, { jwt: b })).body.endpoints).toEqual([])
    expect((await t.call(`/apis/${api.id}/endpoints/${ep.id}`, { jwt: a })).body.enabled).toBe(true)
  })

  test("the other environment's API is 404", async () => {
    const jwt = await seller()
    const dev = await createApi(jwt, 'development')
    const ep = (
      await t.call(`/apis/${dev.id}/endpoints`, {
        jwt,
        environment: 'development',
        body: { method: 'POST', path_pattern: '/x', accepts: [sandboxAccept] },
      })
    ).body
    expect(await t.call(`/apis/${dev.id}/endpoints`, { jwt })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    expect(await t.call(`/apis/${dev.id}/endpoints/${ep.id}`, { jwt })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
    const sandboxKey = await t.createKey(jwt, 'development', ['endpoints:read'])
    expect(
      (await t.call(`/apis/${dev.id}/endpoints`, { host: 'development', key: sandboxKey })).body.endpoints,
    ).toHaveLength(1)
    const prod = await createApi(jwt)
    expect(await t.call(`/apis/${prod.id}/endpoints`, { host: 'development', key: sandboxKey })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
  })

  test('scopes and email verification', async () => {
    const jwt = await seller()
    const api = await createApi(jwt)
    const ep = (
      await t.call(`/apis/${api.id}/endpoints`, {
        jwt,
        body: { method: 'POST', path_pattern: '/x', accepts: [liveAccept] },
      })
    ).body
    const reader = await t.createKey(jwt, 'production', ['endpoints:read'])
    const apisOnly = await t.createKey(jwt, 'production', ['apis:read', 'apis:write'])
    const writer = await t.createKey(jwt, 'production', ['endpoints:write'])
    const insufficient = { status: 403, body: { error: 'insufficient scope' } }
    const base = `/apis/${api.id}/endpoints`
    expect(
      await t.call(base, { key: reader, body: { method: 'GET', path_pattern: '/y', accepts: [liveAccept] } }),
    ).toMatchObject(insufficient)
    expect(await t.call(`${base}/${ep.id}`, { key: reader, method: 'PUT', body: { enabled: false } })).toMatchObject(
      insufficient,
    )
    expect(await t.call(`${base}/${ep.id}`, { key: reader, method: 'DELETE' })).toMatchObject(insufficient)
    expect(await t.call(base, { key: apisOnly })).toMatchObject(insufficient)
    expect(await t.call(`${base}/${ep.id}`, { key: writer })).toMatchObject(insufficient)
    expect((await t.call(base, { key: reader })).body.endpoints).toHaveLength(1)
    expect(
      (await t.call(base, { key: writer, body: { method: 'GET', path_pattern: '/y', accepts: [liveAccept] } })).status,
    ).toBe(201)

    const unverified = await seller({ verified: false })
    const needsVerification = { status: 403, body: { error: 'email verification required' } }
    expect(
      await t.call(base, { jwt: unverified, body: { method: 'GET', path_pattern: '/z', accepts: [liveAccept] } }),
    ).toMatchObject(needsVerification)
    expect(await t.call(`${base}/${ep.id}`, { jwt: unverified, method: 'PUT', body: {} })).toMatchObject(
      needsVerification,
    )
    expect(await t.call(`${base}/${ep.id}`, { jwt: unverified, method: 'DELETE' })).toMatchObject(needsVerification)
    // Reading is no write: an unverified seller gets the usual 404 for someone else's API.
    expect(await t.call(base, { jwt: unverified })).toMatchObject({
      status: 404,
      body: { error: expect.stringMatching(/^api not found: /) },
    })
  })
})
