/**
 * The scope table of SPEC.md as a matrix: every guarded route × no credential / wrong environment / missing scope /
 * right scope. Runs on the Sandbox host with Sandbox keys (the wallet routes exist only there).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { scopes, type Scope } from '../../../core/scopes.js'
import { startTestServer, type CallOptions, type TestServer } from '../../helpers/control.js'

let chain: ChainServices
let t: TestServer
let jwt: string
let otherJwt: string

beforeAll(async () => {
  chain = await startChainServices()
  t = await startTestServer({ chain })
  ;({ jwt } = await t.signup())
  ;({ jwt: otherJwt } = await t.signup())
})
afterAll(async () => {
  await t?.stop()
  await chain?.stop()
})

const dev = { host: 'development' as const, environment: 'development' }
const accepts = [
  {
    scheme: 'exact',
    network: 'eip155:845320402',
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    amount: '10000',
  },
]
let slugCounter = 0

/** A fresh API with one endpoint, owned by the seller of `jwt`, in the Sandbox. */
async function fixture() {
  const api = await t.call('/apis', {
    ...dev,
    jwt,
    body: {
      name: 'Matrix',
      slug: `matrix-${Date.now()}-${++slugCounter}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    },
  })
  expect(api.status).toBe(201)
  const endpoint = await t.call(`/apis/${api.body.id}/endpoints`, {
    ...dev,
    jwt,
    body: { method: 'GET', path_pattern: '/things/{id}', accepts, response_schema: { type: 'object' } },
  })
  expect(endpoint.status).toBe(201)
  const key = await t.call('/auth/api-keys', { ...dev, jwt, body: { name: 'victim', scopes: ['apis:read'] } })
  const domain = await t.call(`/apis/${api.body.id}/domains`, {
    ...dev,
    jwt,
    body: { hostname: `matrix-${slugCounter}-${Date.now()}.example.com` },
  })
  expect(domain.status).toBe(201)
  return {
    apiId: api.body.id as string,
    endpointId: endpoint.body.id as string,
    keyId: key.body.id as string,
    domainId: domain.body.id as string,
  }
}

type Fixture = Awaited<ReturnType<typeof fixture>>
type Route = {
  name: string
  /** Scopes an API key needs; `jwt` for routes an API key may never call. */
  needs: Scope[] | 'jwt'
  success: number
  request(f: Fixture): { path: string; method: string; body?: unknown }
}

const spec = `openapi: 3.0.3
info: { title: Matrix, version: '1' }
paths:
  /imported/{id}:
    get:
      responses:
        '200':
          description: ok
          content: { application/json: { schema: { type: object } } }
`

const routes: Route[] = [
  {
    name: 'POST /apis',
    needs: ['apis:write'],
    success: 201,
    request: () => ({
      method: 'POST',
      path: '/apis',
      body: {
        name: 'New',
        slug: `new-${Date.now()}-${++slugCounter}`,
        upstream_base_url: 'http://127.0.0.1:9',
        pay_to_mode: 'user_wallet',
        pay_to_address: '0x000000000000000000000000000000000000bEEF',
      },
    }),
  },
  { name: 'GET /apis', needs: ['apis:read'], success: 200, request: () => ({ method: 'GET', path: '/apis' }) },
  {
    name: 'GET /apis/{id}',
    needs: ['apis:read'],
    success: 200,
    request: (f) => ({ method: 'GET', path: `/apis/${f.apiId}` }),
  },
  {
    name: 'PUT /apis/{id}',
    needs: ['apis:write'],
    success: 200,
    request: (f) => ({ method: 'PUT', path: `/apis/${f.apiId}`, body: { discovery_guidance: 'Pay per call.' } }),
  },
  {
    name: 'DELETE /apis/{id}',
    needs: ['apis:write'],
    success: 200,
    request: (f) => ({ method: 'DELETE', path: `/apis/${f.apiId}` }),
  },
  {
    name: 'POST /apis/{id}/endpoints',
    needs: ['endpoints:write'],
    success: 201,
    request: (f) => ({
      method: 'POST',
      path: `/apis/${f.apiId}/endpoints`,
      body: { method: 'POST', path_pattern: '/new', accepts },
    }),
  },
  {
    name: 'GET /apis/{id}/endpoints',
    needs: ['endpoints:read'],
    success: 200,
    request: (f) => ({ method: 'GET', path: `/apis/${f.apiId}/endpoints` }),
  },
  {
    name: 'GET /apis/{id}/endpoints/{eid}',
    needs: ['endpoints:read'],
    success: 200,
    request: (f) => ({ method: 'GET', path: `/apis/${f.apiId}/endpoints/${f.endpointId}` }),
  },
  {
    name: 'PUT /apis/{id}/endpoints/{eid}',
    needs: ['endpoints:write'],
    success: 200,
    request: (f) => ({ method: 'PUT', path: `/apis/${f.apiId}/endpoints/${f.endpointId}`, body: { enabled: false } }),
  },
  {
    name: 'DELETE /apis/{id}/endpoints/{eid}',
    needs: ['endpoints:write'],
    success: 200,
    request: (f) => ({ method: 'DELETE', path: `/apis/${f.apiId}/endpoints/${f.endpointId}` }),
  },
  {
    name: 'POST /openapi/parse',
    needs: ['openapi:read'],
    success: 200,
    request: () => ({ method: 'POST', path: '/openapi/parse', body: { spec } }),
  },
  {
    name: 'POST /apis/{id}/openapi/import',
    needs: ['openapi:read', 'endpoints:write'],
    success: 200,
    request: (f) => ({
      method: 'POST',
      path: `/apis/${f.apiId}/openapi/import`,
      body: { operations: [{ method: 'GET', path_pattern: '/imported/{id}' }], accepts },
    }),
  },
  {
    name: 'GET /apis/{id}/discovery',
    needs: ['apis:read'],
    success: 200,
    request: (f) => ({ method: 'GET', path: `/apis/${f.apiId}/discovery` }),
  },
  {
    name: 'POST /apis/{id}/domains',
    needs: ['domains:write'],
    success: 201,
    request: (f) => ({
      method: 'POST',
      path: `/apis/${f.apiId}/domains`,
      body: { hostname: `new-${++slugCounter}-${Date.now()}.example.com` },
    }),
  },
  {
    name: 'GET /apis/{id}/domains',
    needs: ['domains:read'],
    success: 200,
    request: (f) => ({ method: 'GET', path: `/apis/${f.apiId}/domains` }),
  },
  {
    name: 'GET /apis/{id}/domains/{did}',
    needs: ['domains:read'],
    success: 200,
    request: (f) => ({ method: 'GET', path: `/apis/${f.apiId}/domains/${f.domainId}` }),
  },
  {
    name: 'DELETE /apis/{id}/domains/{did}',
    needs: ['domains:write'],
    success: 200,
    request: (f) => ({ method: 'DELETE', path: `/apis/${f.apiId}/domains/${f.domainId}` }),
  },
  {
    name: 'GET /stats/overview',
    needs: ['stats:read'],
    success: 200,
    request: () => ({ method: 'GET', path: '/stats/overview?days=3' }),
  },
  {
    name: 'GET /settlements',
    needs: ['settlements:read'],
    success: 200,
    request: () => ({ method: 'GET', path: '/settlements' }),
  },
  {
    name: 'POST /auth/api-keys',
    needs: 'jwt',
    success: 201,
    request: () => ({ method: 'POST', path: '/auth/api-keys', body: { name: 'k', scopes: ['apis:read'] } }),
  },
  {
    name: 'GET /auth/api-keys',
    needs: 'jwt',
    success: 200,
    request: () => ({ method: 'GET', path: '/auth/api-keys' }),
  },
  {
    name: 'DELETE /auth/api-keys/{id}',
    needs: 'jwt',
    success: 200,
    request: (f) => ({ method: 'DELETE', path: `/auth/api-keys/${f.keyId}` }),
  },
  {
    name: 'GET /sandbox-wallet',
    needs: 'jwt',
    success: 200,
    request: () => ({ method: 'GET', path: '/sandbox-wallet' }),
  },
  {
    name: 'POST /sandbox-wallet/reset',
    needs: 'jwt',
    success: 200,
    request: () => ({ method: 'POST', path: '/sandbox-wallet/reset' }),
  },
  {
    name: 'POST /dev/balances',
    needs: 'jwt',
    success: 200,
    request: () => ({
      method: 'POST',
      path: '/dev/balances',
      body: { address: '0x000000000000000000000000000000000000bEEF' },
    }),
  },
  {
    name: 'POST /dev/faucet',
    needs: 'jwt',
    success: 200,
    request: () => ({
      method: 'POST',
      path: '/dev/faucet',
      body: { address: '0x000000000000000000000000000000000000bEEF', asset: 'eth' },
    }),
  },
]

/** Routes that change something: they need a verified email. */
const writes = new Set([
  'POST /apis',
  'PUT /apis/{id}',
  'DELETE /apis/{id}',
  'POST /apis/{id}/endpoints',
  'PUT /apis/{id}/endpoints/{eid}',
  'DELETE /apis/{id}/endpoints/{eid}',
  'POST /apis/{id}/openapi/import',
  'POST /auth/api-keys',
  'POST /sandbox-wallet/reset',
  'POST /dev/faucet',
  'POST /apis/{id}/domains',
  'DELETE /apis/{id}/domains/{did}',
])

async function send(route: Route, f: Fixture, credentials: Partial<CallOptions>) {
  const { path, method, body } = route.request(f)
  return t.call(path, { host: 'development', method, body, ...credentials })
}

describe.each(routes)('$name', (route) => {
  test('no credential → 401 unauthorized', async () => {
    expect(await send(route, await fixture(), {})).toMatchObject({ status: 401, body: { error: 'unauthorized' } })
  })

  test('a key of the other environment → 401 invalid token', async () => {
    const liveKey = await t.createKey(jwt, 'production', [...scopes])
    expect(await send(route, await fixture(), { key: liveKey })).toMatchObject({
      status: 401,
      body: { error: 'invalid token' },
    })
  })

  test(
    route.needs === 'jwt' ? 'any API key → 403 jwt required' : 'a key missing the scope → 403 insufficient scope',
    async () => {
      const needs = route.needs
      const granted = needs === 'jwt' ? [...scopes] : scopes.filter((s) => !needs.includes(s))
      const key = await t.createKey(jwt, 'development', granted)
      const error = needs === 'jwt' ? 'jwt required' : 'insufficient scope'
      expect(await send(route, await fixture(), { key })).toMatchObject({ status: 403, body: { error } })
      if (needs !== 'jwt' && needs.length > 1) {
        // Every scope is needed, not one of them.
        for (const scope of needs) {
          const partial = await t.createKey(jwt, 'development', [scope])
          expect((await send(route, await fixture(), { key: partial })).status).toBe(403)
        }
      }
    },
  )

  test('the right credential succeeds', async () => {
    const f = await fixture()
    const credentials: Partial<CallOptions> =
      route.needs === 'jwt'
        ? { jwt, environment: 'development' }
        : { key: await t.createKey(jwt, 'development', route.needs) }
    const result = await send(route, f, credentials)
    expect(result.status, JSON.stringify(result.body)).toBe(route.success)
  })

  if (writes.has(route.name)) {
    test('an unverified seller → 403 email verification required', async () => {
      const { jwt: unverified } = await t.signup({ verified: false })
      expect(await send(route, await fixture(), { jwt: unverified, environment: 'development' })).toMatchObject({
        status: 403,
        body: { error: 'email verification required' },
      })
    })
  }

  if (route.name.includes('{')) {
    test("another seller's resource → 404", async () => {
      const f = await fixture()
      const result = await send(route, f, { jwt: otherJwt, environment: 'development' })
      expect(result.status).toBe(404)
    })
  }
})
