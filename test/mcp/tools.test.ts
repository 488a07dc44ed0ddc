import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { connectMcp, payTo, textOf, type McpSession } from './connect.js'

const petstore = readFileSync(new URL('../../fixtures/openapi/petstore-3.0.yaml', import.meta.url), 'utf8')
const allScopes = [
  'apis:read',
  'apis:write',
  'endpoints:read',
  'endpoints:write',
  'stats:read',
  'settlements:read',
  'openapi:read',
  'payments:write',
]

let t: TestServer
let mcp: McpSession
let key: string
beforeAll(async () => {
  t = await startTestServer()
  const { jwt } = await t.signup()
  key = await t.createKey(jwt, 'development', allScopes)
  mcp = await connectMcp(t, key)
})
afterAll(async () => {
  await mcp?.close()
  await t?.stop()
})

let slugs = 0
const slug = () => `mcp-${process.pid}-${++slugs}`
const createApi = (extra: Record<string, unknown> = {}) =>
  mcp.ok('svc_create_api', {
    name: 'Pets',
    slug: slug(),
    upstream_base_url: 'http://127.0.0.1:9',
    pay_to_address: payTo,
    ...extra,
  })

describe('svc mcp tools', () => {
  test('tools/list: svc_ names, the required tools, descriptions and strict input schemas, no wallet tools', async () => {
    const { tools } = await mcp.client.listTools()
    const names = tools.map((tool) => tool.name)
    expect(names.every((name) => name.startsWith('svc_'))).toBe(true)
    expect(names).toEqual(
      expect.arrayContaining([
        'svc_create_api',
        'svc_import_openapi',
        'svc_discovery_urls',
        'svc_set_discovery_guidance',
        'svc_update_endpoint_schemas',
        'svc_list_apis',
        'svc_list_endpoints',
        'svc_create_endpoint',
        'svc_get_stats',
        'svc_list_settlements',
        'svc_list_payments',
        'svc_capture_payment',
        'svc_void_payment',
        'svc_refund_payment',
      ]),
    )
    for (const tool of tools) {
      expect(tool.description, tool.name).toMatch(/Needs: an API key with /)
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false)
      expect(tool.outputSchema, tool.name).toBeDefined()
      expect(JSON.stringify(tool), tool.name).not.toMatch(/wallet|private.?key|faucet/i)
    }
    const createApiTool = tools.find((tool) => tool.name === 'svc_create_api')!
    expect(createApiTool.inputSchema.required).toEqual(
      expect.arrayContaining(['name', 'slug', 'upstream_base_url', 'pay_to_address']),
    )
  })

  test('tools/list: schemas strict clients accept: no type arrays, no `nullable`; null and price alternatives are anyOf', async () => {
    const { tools } = await mcp.client.listTools()
    /** Where a schema holds a `type` array or the OpenAPI `nullable` keyword. */
    const strictProblems = (node: unknown, path: string): string[] => {
      if (Array.isArray(node)) return node.flatMap((item, i) => strictProblems(item, `${path}/${i}`))
      if (typeof node !== 'object' || node === null) return []
      const own = [
        ...(Array.isArray((node as any).type) ? [`${path}: type ${JSON.stringify((node as any).type)}`] : []),
        ...('nullable' in node ? [`${path}: nullable`] : []),
      ]
      return [...own, ...Object.entries(node).flatMap(([key, value]) => strictProblems(value, `${path}/${key}`))]
    }
    for (const tool of tools) {
      expect(strictProblems(tool.inputSchema, `${tool.name} input`)).toEqual([])
      expect(strictProblems(tool.outputSchema, `${tool.name} output`)).toEqual([])
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]))
    const input = (name: string, field: string) => (byName.get(name)!.inputSchema.properties as any)[field]
    const output = (name: string, field: string) => (byName.get(name)!.outputSchema!.properties as any)[field]
    // A price is a decimal string or a number.
    for (const name of ['svc_create_endpoint', 'svc_import_openapi'])
      expect(input(name, 'price')).toMatchObject({
        anyOf: [{ type: 'string', pattern: expect.any(String) }, { type: 'number' }],
      })
    // A nullable field is anyOf its type and null.
    expect(input('svc_set_discovery_guidance', 'discovery_guidance')).toMatchObject({
      anyOf: [{ type: 'string', maxLength: 10_000 }, { type: 'null' }],
    })
    expect(output('svc_create_api', 'pay_to_address')).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] })
    expect(output('svc_create_endpoint', 'ttl')).toMatchObject({ anyOf: [{ type: 'number' }, { type: 'null' }] })
    expect(output('svc_create_endpoint', 'response_schema')).toMatchObject({
      anyOf: [{ type: 'object' }, { type: 'null' }],
    })
    expect(output('svc_list_settlements', 'next_cursor')).toMatchObject({
      anyOf: [{ type: 'string' }, { type: 'null' }],
    })
    expect(output('svc_get_stats', 'api_id')).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] })
  })

  test('svc_create_api, svc_list_apis', async () => {
    const api = await createApi()
    expect(api).toMatchObject({
      name: 'Pets',
      environment: 'development',
      pay_to_mode: 'user_wallet',
      pay_to_address: payTo,
    })
    const result = await mcp.call('svc_list_apis')
    expect(textOf(result)).toContain(`${api.id}`)
    expect((result.structuredContent as any).apis.map((a: any) => a.id)).toContain(api.id)
  })

  test('svc_create_endpoint: a USDC price with Sandbox defaults, or atomic units; svc_list_endpoints', async () => {
    const api = await createApi()
    const priced = await mcp.ok('svc_create_endpoint', {
      api_id: api.id,
      method: 'GET',
      path_pattern: '/weather/{city}',
      price: '0.01',
    })
    expect(priced).toMatchObject({ schema_source: 'inferred', path_pattern: '/weather/{city}' })
    expect(priced.accepts).toEqual([
      expect.objectContaining({
        scheme: 'exact',
        network: 'eip155:845320402',
        amount: '10000',
        max_timeout_seconds: 300,
        extra: expect.objectContaining({ name: 'USDC' }),
      }),
    ])
    const atomic = await mcp.ok('svc_create_endpoint', {
      api_id: api.id,
      method: 'POST',
      path_pattern: '/files/*',
      amount: '250',
      ttl: 600,
    })
    expect(atomic.accepts[0].amount).toBe('250')
    expect(atomic.expires_at).toEqual(expect.any(String))
    const listed = await mcp.ok('svc_list_endpoints', { api_id: api.id })
    expect(listed.endpoints.map((e: any) => e.id).sort()).toEqual([priced.id, atomic.id].sort())

    // A number, as MCP clients send it: the decimal it was written as.
    const numeric = await mcp.ok('svc_create_endpoint', {
      api_id: api.id,
      method: 'GET',
      path_pattern: '/numeric/cent',
      price: 0.01,
    })
    expect(numeric.accepts[0].amount).toBe('10000')
    for (const [price, amount] of [
      [2, '2000000'],
      [0.000001, '1'],
      [12.345678, '12345678'],
      [100, '100000000'],
    ] as const)
      expect(
        (
          await mcp.ok('svc_create_endpoint', {
            api_id: api.id,
            method: 'GET',
            path_pattern: `/numeric/${amount}`,
            price,
          })
        ).accepts[0].amount,
        String(price),
      ).toBe(amount)

    const both = await mcp.call('svc_create_endpoint', {
      api_id: api.id,
      method: 'GET',
      path_pattern: '/x',
      price: '1',
      amount: '1',
    })
    expect(both.isError).toBe(true)
    expect(textOf(both)).toContain('not both')
  })

  test('svc_import_openapi: the petstore twice, the second time everything is skipped', async () => {
    const api = await createApi()
    const first = await mcp.call('svc_import_openapi', { api_id: api.id, spec: petstore, price: '0.05' })
    expect(first.isError).toBeFalsy()
    const created = (first.structuredContent as any).created
    expect(created.length).toBeGreaterThan(0)
    expect(created.every((e: any) => e.accepts[0].amount === '50000')).toBe(true)
    expect(created.some((e: any) => e.schema_source === 'openapi')).toBe(true)
    expect((first.content[0] as any).text).toMatch(/^Imported \d+ operations: created \d+, skipped 0/)

    const second = await mcp.ok('svc_import_openapi', { api_id: api.id, spec: petstore, amount: '50000' })
    expect(second).toMatchObject({ created: [], operations: created.length })
    expect(second.skipped).toHaveLength(created.length)
  })

  test('svc_discovery_urls and svc_set_discovery_guidance (GET /apis/{id} shows it)', async () => {
    const api = await createApi()
    await mcp.ok('svc_create_endpoint', { api_id: api.id, method: 'GET', path_pattern: '/a', price: '0.01' })
    const urls = await mcp.ok('svc_discovery_urls', { api_id: api.id })
    expect(urls).toMatchObject({ endpoint_count: 1, discoverable_endpoint_count: 1 })
    expect(urls.openapi_url).toMatch(/\/openapi\.json$/)
    expect(urls.well_known_url).toMatch(/\/\.well-known\/x402\.json$/)

    const guided = await mcp.ok('svc_set_discovery_guidance', {
      api_id: api.id,
      discovery_guidance: 'Call GET /a first.',
    })
    expect(guided.discovery_guidance).toBe('Call GET /a first.')
    const { body } = await t.call(`/apis/${api.id}`, { host: 'development', key })
    expect(body.discovery_guidance).toBe('Call GET /a first.')

    const cleared = await mcp.ok('svc_set_discovery_guidance', { api_id: api.id, discovery_guidance: null })
    expect(cleared.discovery_guidance).toBeNull()
  })

  test('svc_update_endpoint_schemas: schemas → manual, clear_schemas → inferred', async () => {
    const api = await createApi()
    const endpoint = await mcp.ok('svc_create_endpoint', {
      api_id: api.id,
      method: 'POST',
      path_pattern: '/echo',
      amount: '1000',
    })
    const responseSchema = { type: 'object', properties: { echo: { type: 'string' } }, required: ['echo'] }
    const manual = await mcp.ok('svc_update_endpoint_schemas', {
      api_id: api.id,
      endpoint_id: endpoint.id,
      response_schema: responseSchema,
    })
    expect(manual).toMatchObject({ schema_source: 'manual', response_schema: responseSchema })

    const inferred = await mcp.ok('svc_update_endpoint_schemas', {
      api_id: api.id,
      endpoint_id: endpoint.id,
      clear_schemas: true,
    })
    expect(inferred.schema_source).toBe('inferred')
    expect(inferred.response_schema).not.toEqual(responseSchema)

    const nothing = await mcp.call('svc_update_endpoint_schemas', { api_id: api.id, endpoint_id: endpoint.id })
    expect(nothing.isError).toBe(true)
    expect(textOf(nothing)).toContain('nothing to change')
  })

  test('svc_get_stats and svc_list_settlements', async () => {
    const stats = await mcp.call('svc_get_stats', { days: 3 })
    expect(stats.isError).toBeFalsy()
    expect(stats.structuredContent).toMatchObject({ days: 3, totals: { requests: 0, settlements: 0 }, revenue: [] })
    expect(textOf(stats)).toContain('revenue nothing yet')

    const page = await mcp.call('svc_list_settlements', { limit: 10 })
    expect(page.structuredContent).toEqual({ settlements: [], next_cursor: null })
    expect((page.content[0] as any).text).toBe('0 settlements on this page.')
  })
  test('svc_list_payments and the escrow lifecycle tools: answers, refusals as error results', async () => {
    const list = await mcp.call('svc_list_payments', { state: 'authorized' })
    expect(list.isError).toBeFalsy()
    expect(list.structuredContent).toEqual({ payments: [] })
    expect((list.content[0] as any).text).toBe('0 escrow payments.')
    for (const [tool, input] of [
      ['svc_capture_payment', { payment_id: 'esc_nope', amount: '100' }],
      ['svc_void_payment', { payment_id: 'esc_nope' }],
      ['svc_refund_payment', { payment_id: 'esc_nope', amount: '100' }],
    ] as const) {
      const refused = await mcp.call(tool, input)
      expect(refused.isError, tool).toBe(true)
      expect(textOf(refused), tool).toContain('payment not found')
    }
    const bad = await mcp.call('svc_refund_payment', { payment_id: 'esc_nope', amount: '0.5' })
    expect(bad.isError).toBe(true)
    expect(textOf(bad)).toMatch(/amount/)
  })
})
