import fc from 'fast-check'
import { afterAll, beforeAll, test } from 'vitest'
import { loadContract } from '../../server/control/openapi-document.js'
import { localFetch } from '../../sdk/local-fetch.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  type GatewayStack,
} from '../server/gateway/helpers.js'
import { newAccount } from '../helpers/payments.js'
import {
  answerOf,
  expectClean,
  fuzz,
  nastyJson,
  nastyString,
  percentEncoded,
  printable,
  removed,
  type Answer,
} from './fuzz-kit.js'

/**
 * The control plane under hostile input: every operation of its OpenAPI contract, with bodies built from the
 * contract's schemas (plausible values mixed with hostile ones), hostile path and query parameters, any credentials
 * and environment header, on both control-plane hosts.
 */

type Schema = Record<string, any>
type Operation = { method: string; path: string; query: string[]; body: Schema | undefined }

let stack: GatewayStack | undefined
/** Ids of the seller's resources, by path parameter name: the fuzzed requests reach real rows. */
let ids: Record<string, string[]>
/** Ids of throwaway resources: the only real ids a fuzzed DELETE gets, so the others stay. */
let throwaway: Record<string, string[]>
let credentials: { jwt: string; key: string; unverifiedJwt: string }
/** Plausible values by field (or query parameter) name, where the contract's schema alone would not pass. */
let samples: Record<string, fc.Arbitrary<unknown>>

beforeAll(async () => {
  stack = await startGatewayStack()
  const { services, t, upstream } = stack
  const seller = await newSeller(t)
  const key = await t.createKey(seller.jwt, 'development', [
    'apis:read',
    'apis:write',
    'endpoints:read',
    'endpoints:write',
    'domains:read',
    'domains:write',
    'stats:read',
    'settlements:read',
    'openapi:read',
  ])
  const unverified = await t.signup({ verified: false })
  credentials = { jwt: seller.jwt, key, unverifiedJwt: unverified.jwt }

  const resources = async () => {
    const api = await createApi(t, seller, upstream.url)
    const endpoint = await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const domain = await t.call(`/apis/${api.id}/domains`, {
      jwt: seller.jwt,
      environment: 'development',
      body: { hostname: `${api.slug}.example.test` },
    })
    const created = await t.call('/auth/api-keys', {
      jwt: seller.jwt,
      environment: 'development',
      body: { name: 'throwaway', scopes: ['apis:read'] },
    })
    return { apiId: [api.id], endpointId: [endpoint.id], domainId: [domain.body.id], keyId: [created.body.id] }
  }
  ids = await resources()
  throwaway = await resources()
  const address = newAccount().address
  const one = (...values: unknown[]) => fc.constantFrom(...values)
  const numbered = (max: number, format: (n: number) => string) => fc.integer({ min: 1, max }).map(format)
  /** Usually `usual`, sometimes one of `others`. */
  const usually = (usual: fc.Arbitrary<unknown>, ...others: unknown[]) => mostly(usual, fc.constantFrom(...others), 4)
  samples = {
    email: usually(
      numbered(20, (n) => `fuzz-${process.pid}-${n}@example.test`),
      'not-an-email',
      seller.payTo,
    ),
    password: usually(one('correct horse battery'), 'short'),
    name: one('Fuzz'),
    slug: numbered(1_000_000, (n) => `fuzz-${n}`),
    upstream_base_url: usually(
      one(upstream.url, `${upstream.url}/v1/`),
      'http://127.0.0.1:1',
      'ftp://example.test/',
      `http://127.0.0.1:${t.server.port}`,
    ),
    pay_to_address: one(address),
    address: one(address),
    hostname: usually(
      numbered(1_000_000, (n) => `fuzz-${n}.example.test`),
      'localhost',
      'example',
    ),
    path_pattern: usually(
      numbered(1_000_000, (n) => `/fuzz/${n}/{id}`),
      '/items/{id}',
      '/files/*',
      '/{a}/{a}',
      'no-slash',
    ),
    asset: one(services.sandboxChain.usdc.address),
    network: usually(one('eip155:845320402'), 'eip155:8453'),
    amount: usually(one('10000'), '1.5', '0'),
    method: usually(one('GET', 'POST'), 'get'),
    discovery_contact_email: one(null, 'owner@example.test'),
    token: one('x'.repeat(24)),
    request_schema: one({ type: 'object' }, null),
    response_schema: one({ type: 'object' }, null),
    spec: one(
      'openapi: 3.1.0\ninfo: { title: t, version: "1" }\npaths:\n  /a:\n    get:\n      responses: { "200": { description: ok } }\n',
      '{',
    ),
    api_id: one(...ids.apiId!),
    endpoint_id: one(...ids.endpointId!),
    days: one('7', '0', '366'),
    limit: one('10', '0', '1000000'),
    from: one('2026-01-01', '2026-13-45'),
    to: one('2026-12-31T00:00:00Z', 'yesterday'),
    format: one('csv', 'json', 'xml'),
    cursor: one('abc'),
  }
})
afterAll(() => stack?.stop())

/** Resolves a local `$ref` of the contract. */
function resolved(schema: Schema | undefined, contract: Schema): Schema | undefined {
  let current = schema
  for (let depth = 0; current?.$ref && depth < 10; depth++)
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((node: Schema, key: string) => node?.[key], contract)
  return current
}

/** Every operation of the contract: method, path template, query parameter names, JSON body schema. */
function operationsOf(contract: Schema): Operation[] {
  const operations: Operation[] = []
  for (const [path, item] of Object.entries<Schema>(contract.paths))
    for (const [method, operation] of Object.entries<Schema>(item)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue
      // Left out: the live stream never ends (test/server/control/events.test.ts), and each chain restart takes the chain
      // away for a moment (test/server/faults.test.ts).
      if (operation.responses?.['200']?.content?.['text/event-stream'] || path === '/dev/chain/restart') continue
      const parameters = [...(operation.parameters ?? []), ...(item.parameters ?? [])].map(
        (parameter: Schema) => resolved(parameter, contract)!,
      )
      const query = parameters
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name as string)
      operations.push({
        method: method.toUpperCase(),
        path,
        query,
        body: resolved(operation.requestBody?.content?.['application/json']?.schema, contract),
      })
    }
  return operations
}

/** A value the schema allows (roughly: its samples by field name, enums, types), to reach past the first check. */
function plausible(schema: Schema | undefined, name: string, contract: Schema, depth = 0): fc.Arbitrary<unknown> {
  const node = resolved(schema, contract) ?? {}
  if (node.const !== undefined) return fc.constant(node.const)
  if (node.enum) return fc.constantFrom(...node.enum)
  const known = samples[name]
  if (known) return known
  if (depth > 3) return nastyJson
  const options = node.oneOf ?? node.anyOf
  if (options) return fc.oneof(...options.map((option: Schema) => plausible(option, name, contract, depth + 1)))
  const type = Array.isArray(node.type) ? node.type[0] : node.type
  if (type === 'object' || node.properties) return objectOf(node, contract, depth + 1)
  if (type === 'array')
    return fc.array(plausible(node.items, name, contract, depth + 1), {
      minLength: node.minItems ?? 0,
      maxLength: Math.max(node.minItems ?? 0, 2),
    })
  if (type === 'integer' || type === 'number')
    return fc.integer({ min: node.minimum ?? -2, max: node.maximum ?? 100_000 })
  if (type === 'boolean') return fc.boolean()
  if (type === 'null') return fc.constant(null)
  return fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz0123456789 -'), minLength: 1, maxLength: 20 })
}

/**
 * An object of the schema's properties, all plausible but for none, one or two that are hostile or left out, and
 * sometimes an unknown key: most requests get past the first check, and each check meets hostile values.
 */
function objectOf(schema: Schema, contract: Schema, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const properties = Object.entries<Schema>(schema.properties ?? {})
  if (properties.length === 0) return fc.constant({})
  const valid = fc.tuple(...properties.map(([name, property]) => plausible(property, name, contract, depth)))
  const hostile = fc.tuple(
    fc.constantFrom(...properties.map(([name]) => name)),
    fc.oneof({ weight: 4, arbitrary: nastyJson }, { weight: 1, arbitrary: fc.constant<unknown>(removed) }),
  )
  const changes = fc.oneof(
    { weight: 4, arbitrary: fc.constant([]) },
    { weight: 2, arbitrary: fc.tuple(hostile) },
    { weight: 1, arbitrary: fc.tuple(hostile, hostile) },
  )
  const extra = mostly(
    fc.constant(undefined),
    fc.tuple(
      nastyString.filter((key) => key.length < 300),
      nastyJson,
    ),
    9,
  )
  return fc.tuple(valid, changes, extra).map(([values, changed, unknown]) => {
    const value: Record<string, unknown> = Object.fromEntries(properties.map(([name], index) => [name, values[index]]))
    for (const [name, next] of changed as [string, unknown][]) {
      if (next === removed) delete value[name]
      else value[name] = next
    }
    if (unknown) value[unknown[0]] = unknown[1]
    return value
  })
}

type Request = {
  host: 'production' | 'development'
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

/** Mostly `valid`, sometimes `hostile`: each part of a request is usually right, so the others are reached. */
const mostly = <T>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<T>, odds = 6) =>
  fc.oneof({ weight: odds, arbitrary: valid }, { weight: 1, arbitrary: hostile })

/** A path parameter: a real id (never for a DELETE, which gets a throwaway one), or a hostile string. */
const pathParameter = (name: string, method: string) =>
  mostly(
    fc.constantFrom(...((method === 'DELETE' ? throwaway : ids)[name] ?? ['none'])),
    nastyString.filter((text) => text.length < 2_000).map(percentEncoded),
    4,
  )

/** The seller's JWT; else its API key (on the development host), an unverified account's JWT, none, or garbage. */
const credentialHeaders = (): fc.Arbitrary<Record<string, string>> =>
  mostly(
    fc.constant({ authorization: `Bearer ${credentials.jwt}` }),
    fc.oneof(
      fc.constant({ 'x-api-key': credentials.key }),
      fc.constant({ authorization: `Bearer ${credentials.unverifiedJwt}` }),
      fc.constant({}),
      printable(300).map((value) => ({ authorization: value })),
      printable(300).map((value) => ({ 'x-api-key': value })),
    ),
    3,
  )

const environmentHeader: fc.Arbitrary<Record<string, string>> = mostly(
  fc.constant({ 'x-svc-environment': 'development' }),
  fc.oneof(
    fc.constant({}),
    fc.constant({ 'x-svc-environment': 'production' }),
    printable(40).map((value) => ({ 'x-svc-environment': value })),
  ),
)

const queryValue = (name: string) =>
  mostly(
    (samples[name] ?? printable(10)).map(String),
    fc.oneof(
      printable(40),
      nastyString.filter((text) => text.length < 2_000),
    ),
    2,
  )

/** A request to one operation: its path parameters, query, credentials, environment and body. */
function requestTo(operation: Operation, contract: Schema): fc.Arbitrary<Request> {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]!)
  const body = operation.body
    ? mostly(
        objectOf(operation.body, contract).map((value) => JSON.stringify(value)),
        fc.oneof(
          nastyJson.map((value) => JSON.stringify(value) ?? 'null'),
          fc.constantFrom('{"name":', '', '[', 'x'.repeat(1_100_000)),
        ),
        3,
      )
    : operation.method === 'GET'
      ? fc.constant(undefined)
      : fc.option(fc.constantFrom('{}', '{"x":1}', 'not json'), { freq: 5, nil: undefined })
  const query = fc.array(
    fc.oneof(
      {
        weight: 4,
        arbitrary: fc.oneof(
          ...operation.query.map((name) => queryValue(name).map((value) => [name, value] as const)),
          fc.constant(['', ''] as const),
        ),
      },
      { weight: 1, arbitrary: fc.tuple(printable(10), printable(10)) },
    ),
    { maxLength: 3 },
  )
  return fc
    .record({
      host: mostly(fc.constant('development' as const), fc.constant('production' as const), 4),
      parameters: fc.tuple(...names.map((name) => pathParameter(name, operation.method))),
      query,
      credentials: credentialHeaders(),
      environment: environmentHeader,
      body,
      contentType: mostly(
        fc.constant('application/json'),
        fc.constantFrom('text/plain', 'application/merge-patch+json', 'application/json; charset=latin1'),
      ),
    })
    .map(({ host, parameters, query, credentials, environment, body, contentType }): Request => {
      let path = operation.path
      for (const [index, name] of names.entries()) path = path.replace(`{${name}}`, parameters[index]!)
      const search = new URLSearchParams(
        query.filter(([name]) => name !== '').map(([name, value]): [string, string] => [name, value]),
      ).toString()
      const headers: Record<string, string> = {
        ...credentials,
        ...environment,
        ...(body === undefined ? {} : { 'content-type': contentType }),
      }
      return { host, method: operation.method, path: search ? `${path}?${search}` : path, headers, body }
    })
}

/** Requests to paths no operation has, with any method. */
const strayRequests = fc
  .record({
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
    path: fc.oneof(
      printable(30).map((text) => `/${encodeURIComponent(text)}`),
      fc.constantFrom('/apis/', '/auth', '/%', '/apis/%2e%2e/auth/me'),
    ),
  })
  .map(
    ({ method, path }): Request => ({
      host: 'production',
      method,
      path,
      headers: { authorization: `Bearer ${credentials.jwt}` },
    }),
  )

async function send(request: Request): Promise<Answer> {
  const base = request.host === 'development' ? stack!.t.server.sandboxControlUrl : stack!.t.server.controlUrl
  const response = await localFetch(`${base}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    redirect: 'manual',
  })
  return answerOf(response, request.method)
}

const planned = 5_000

test(`${planned} hostile requests to the control plane (every operation of its contract): no 5xx, every error JSON {"error"}, bounded`, async () => {
  const contract = loadContract().json as Schema
  const operations = operationsOf(contract)
  const requests = fc.oneof(
    { weight: 20, arbitrary: fc.constantFrom(...operations).chain((operation) => requestTo(operation, contract)) },
    { weight: 1, arbitrary: strayRequests },
  )
  const report = await fuzz(requests, send, { runs: planned })
  expectClean('control plane', report, planned)
}, 120_000)
