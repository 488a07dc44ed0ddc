import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { z } from 'zod'
import { UsageError } from '../../core/errors.js'
import { addTool } from '../../mcp/tool.js'
import { createSvcClient } from '../../sdk/client.js'
import { createMcpServer } from '../../mcp/server.js'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { connectMcp, expectRefused, payTo, textOf, type McpSession } from './connect.js'

const liveUsdc = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'
const manager = ['apis:read', 'apis:write', 'endpoints:read', 'endpoints:write', 'openapi:read']
const petstore =
  'openapi: 3.0.3\ninfo: { title: P, version: "1" }\npaths:\n  /pets:\n    get:\n      responses: { "200": { description: ok } }\n'

let t: TestServer
let jwt: string
let full: McpSession
let apiId: string
let endpointId: string
const sessions: McpSession[] = []
async function session(scopes: string[], environment: 'development' | 'production' = 'development') {
  const mcp = await connectMcp(t, await t.createKey(jwt, environment, scopes))
  sessions.push(mcp)
  return mcp
}

beforeAll(async () => {
  t = await startTestServer()
  ;({ jwt } = await t.signup())
  full = await session(manager)
  const api = await full.ok('svc_create_api', {
    name: 'Scoped',
    slug: `mcp-err-${process.pid}`,
    upstream_base_url: 'http://127.0.0.1:9',
    pay_to_address: payTo,
  })
  apiId = api.id
  endpointId = (
    await full.ok('svc_create_endpoint', { api_id: apiId, method: 'GET', path_pattern: '/a', price: '0.01' })
  ).id
})
afterAll(async () => {
  for (const mcp of sessions) await mcp.close()
  await t?.stop()
})

describe('svc mcp: the control plane decides, a refusal is an isError result', () => {
  test('a key without the scope a tool needs → "insufficient scope" naming what the tool needs', async () => {
    const readOnly = await session(['apis:read', 'endpoints:read', 'stats:read'])
    const text = await expectRefused(
      readOnly,
      'svc_create_api',
      { name: 'X', slug: 'mcp-nope', upstream_base_url: 'http://127.0.0.1:9', pay_to_address: payTo },
      'insufficient scope',
    )
    expect(text).toContain('svc_create_api needs an API key with the scope apis:write and a verified email')
    await expectRefused(
      readOnly,
      'svc_set_discovery_guidance',
      { api_id: apiId, discovery_guidance: 'x' },
      'insufficient scope',
    )
    const schema = { type: 'object' }
    await expectRefused(
      readOnly,
      'svc_update_endpoint_schemas',
      { api_id: apiId, endpoint_id: endpointId, response_schema: schema },
      'insufficient scope',
    )
    await expectRefused(
      readOnly,
      'svc_import_openapi',
      { api_id: apiId, spec: petstore, price: '0.01' },
      'insufficient scope',
    )
    await expectRefused(readOnly, 'svc_list_settlements', {}, 'insufficient scope')

    const writer = await session(['apis:write', 'endpoints:write'])
    await expectRefused(writer, 'svc_discovery_urls', { api_id: apiId }, 'insufficient scope')
    // The import also needs endpoints:write on the control plane.
    const parser = await session(['openapi:read'])
    await expectRefused(
      parser,
      'svc_import_openapi',
      { api_id: apiId, spec: petstore, price: '0.01' },
      'insufficient scope',
    )
    // The refused session keeps working.
    expect((await readOnly.ok('svc_discovery_urls', { api_id: apiId })).endpoint_count).toBe(1)
  })

  test("an unverified seller's key cannot create an API: 'email verification required'", async () => {
    const seller = await t.signup()
    const key = await t.createKey(seller.jwt, 'development', manager)
    await t.server.database.db
      .updateTable('users')
      .set({ email_verified_at: null })
      .where('id', '=', seller.userId)
      .execute()
    const mcp = await connectMcp(t, key)
    sessions.push(mcp)
    const args = {
      name: 'U',
      slug: `mcp-unverified-${process.pid}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_address: payTo,
    }
    await expectRefused(mcp, 'svc_create_api', args, 'email verification required')
    expect(await mcp.ok('svc_list_apis')).toEqual({ apis: [] })
  })

  test('bad input: missing or unknown arguments, a bad price, an unknown tool → isError, the server stays up', async () => {
    await expectRefused(full, 'svc_create_api', {}, 'Input validation error')
    await expectRefused(full, 'svc_discovery_urls', {}, 'api_id')
    await expectRefused(full, 'svc_list_apis', { wallet: true }, 'Input validation error')
    await expectRefused(
      full,
      'svc_create_endpoint',
      { api_id: apiId, method: 'GET', path_pattern: '/b', price: '0.0000001' },
      'at most 6 decimals',
    )
    await expectRefused(
      full,
      'svc_create_endpoint',
      { api_id: apiId, method: 'GET', path_pattern: '/b' },
      'a price is needed',
    )
    // A number price: at most 6 decimals (0.1 + 0.2 is 0.30000000000000004), not negative, not NaN, exact.
    const numberPrice = (price: number) => ({ api_id: apiId, method: 'GET', path_pattern: '/n', price })
    await expectRefused(
      full,
      'svc_create_endpoint',
      numberPrice(0.0000001),
      'price must be a USDC amount with at most 6 decimals, e.g. 0.01; got 1e-7',
    )
    await expectRefused(
      full,
      'svc_create_endpoint',
      numberPrice(0.1 + 0.2),
      'at most 6 decimals, e.g. 0.01; got 0.30000000000000004',
    )
    await expectRefused(full, 'svc_create_endpoint', numberPrice(-1), 'price must not be negative; got -1')
    await expectRefused(full, 'svc_create_endpoint', numberPrice(Number.NaN), 'Input validation error')
    await expectRefused(
      full,
      'svc_create_endpoint',
      numberPrice(2 ** 60),
      'too large to be exact as a number: give price as a string',
    )
    await expectRefused(full, 'svc_create_endpoint', numberPrice(0), 'the price must be more than 0')
    await expectRefused(
      full,
      'svc_import_openapi',
      { api_id: apiId, spec: petstore, price: 1e-9 },
      'at most 6 decimals',
    )
    await expectRefused(full, 'svc_get_stats', { days: 0 }, 'Input validation error')
    await expectRefused(
      full,
      'svc_create_endpoint',
      { api_id: 'api_missing', method: 'GET', path_pattern: '/b', amount: '1' },
      'not found',
    )
    await expectRefused(full, 'svc_get_wallet', {}, 'Tool svc_get_wallet not found')
    expect((await full.client.listTools()).tools.length).toBeGreaterThanOrEqual(10)
  })

  test("a tool's usage mistakes are UsageErrors: the text is the mistake, never an internal error", async () => {
    const schemas = { api_id: apiId, endpoint_id: endpointId }
    expect(
      await expectRefused(
        full,
        'svc_update_endpoint_schemas',
        { ...schemas, clear_schemas: true, request_schema: {} },
        'not both',
      ),
    ).toBe('give schemas or clear_schemas: true, not both')
    expect(await expectRefused(full, 'svc_update_endpoint_schemas', schemas, 'nothing to change')).toBe(
      'nothing to change: give request_schema and/or response_schema, or clear_schemas: true',
    )
    const empty = 'openapi: 3.0.3\ninfo: { title: E, version: "1" }\npaths: {}\n'
    expect(
      await expectRefused(full, 'svc_import_openapi', { api_id: apiId, spec: empty, price: '0.01' }, 'no operations'),
    ).toBe('the document has no operations to import')
  })

  test('a tool that fails for a reason of its own (a plain Error) says it is an internal error; a UsageError does not', async () => {
    const server = new McpServer({ name: 'probe', version: '1.0.0' })
    const spec = (name: `svc_${string}`) => ({
      name,
      title: name,
      description: 'a probe',
      needs: 'nothing',
      input: z.strictObject({}),
      output: z.strictObject({}),
    })
    addTool(server, spec('svc_usage'), async () => {
      throw new UsageError('give a or b')
    })
    addTool(server, spec('svc_bug'), async () => {
      throw new TypeError("Cannot read properties of undefined (reading 'id')")
    })
    const [a, b] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: 'svc-test', version: '1.0.0' })
    await Promise.all([server.connect(b), client.connect(a)])
    const text = async (name: string) => {
      const result = (await client.callTool({ name, arguments: {} })) as CallToolResult
      expect(result.isError, name).toBe(true)
      return textOf(result)
    }
    expect(await text('svc_usage')).toBe('give a or b')
    expect(await text('svc_bug')).toBe("internal error in svc_bug: Cannot read properties of undefined (reading 'id')")
    await client.close()
    await server.close()
  })

  test('a live key: network and asset are required; given, the endpoint is created', async () => {
    const live = await session(manager, 'production')
    const api = await live.ok('svc_create_api', {
      name: 'Live',
      slug: `mcp-live-${process.pid}`,
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_address: payTo,
    })
    expect(api.environment).toBe('production')
    await expectRefused(
      live,
      'svc_create_endpoint',
      { api_id: api.id, method: 'GET', path_pattern: '/a', price: '0.01' },
      'network and asset are required',
    )
    const endpoint = await live.ok('svc_create_endpoint', {
      api_id: api.id,
      method: 'GET',
      path_pattern: '/a',
      price: '0.01',
      network: 'eip155:8453',
      asset: liveUsdc,
    })
    expect(endpoint.accepts[0]).toMatchObject({ network: 'eip155:8453', amount: '10000' })
  })

  test('a Sandbox key against the production control plane → invalid token with a hint, not a crash', async () => {
    const key = await t.createKey(jwt, 'development', manager)
    const server = createMcpServer({
      client: createSvcClient({ baseUrl: t.server.controlUrl, apiKey: key }),
      environment: 'development',
    })
    const [a, b] = InMemoryTransport.createLinkedPair()
    const client = new Client({ name: 'svc-test', version: '1.0.0' })
    await Promise.all([server.connect(b), client.connect(a)])
    const result = await client.callTool({ name: 'svc_list_apis', arguments: {} })
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toContain('invalid token (HTTP 401): check SVC_API_KEY and SVC_BASE_URL')
    await client.close()
    await server.close()
  })
})
