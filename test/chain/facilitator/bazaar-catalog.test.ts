/**
 * The bazaar catalog's bounds: what one payment may put in it (the extension validated by `@x402/extensions`, sizes
 * capped, only the bazaar extension echoed), one entry per resource with the latest accepts, and a cap on entries
 * with the least recently updated evicted — in memory and in svc's SQLite file alike.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import {
  declareDiscoveryExtension,
  validateDiscoveryExtension,
  validateDiscoveryExtensionSpec,
} from '@x402/extensions/bazaar'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import {
  catalogEntryOf,
  catalogLimits,
  createBazaarCatalog,
  createMemoryCatalogStore,
  discoveryExtensionProblem,
  type CatalogEntry,
  type CatalogStore,
} from '../../../chain/facilitator/bazaar-catalog.js'
import { createSqliteCatalogStore } from '../../../server/db/bazaar-resources.js'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'

const requirements = (payTo = '0x000000000000000000000000000000000000bEEF', amount = '10000'): PaymentRequirements => ({
  scheme: 'exact',
  network: 'eip155:845320402',
  asset: '0x0000000000000000000000000000000000000001',
  amount,
  payTo,
  maxTimeoutSeconds: 300,
  extra: {},
})

/** A GET endpoint's declared extension, enriched with its method as x402's resource server does. */
function getExtension(example: Record<string, unknown> = { city: 'Lima' }) {
  const { bazaar } = declareDiscoveryExtension({
    input: example,
    inputSchema: { properties: { city: { type: 'string' } }, required: ['city'] },
    output: { example: { temp: 1 } },
  }) as any
  bazaar.info.input.method = 'GET'
  bazaar.schema.properties.input.properties.method = { type: 'string', enum: ['GET'] }
  return bazaar
}

function payload(url: string, extensions: Record<string, unknown>, resource: Record<string, unknown> = {}) {
  return {
    x402Version: 2,
    resource: { url, ...resource },
    accepted: requirements(),
    payload: {},
    extensions,
  } as unknown as PaymentPayload
}

const entry = (url: string, at: number, payTo?: string): CatalogEntry => {
  const verdict = catalogEntryOf(payload(url, { bazaar: getExtension() }), requirements(payTo), at)
  if (!verdict || !('entry' in verdict)) throw new Error(`not an entry: ${JSON.stringify(verdict)}`)
  return verdict.entry
}

describe('catalogEntryOf: what one payment may put in the catalog', () => {
  test('a valid extension makes an entry keyed by method and canonical URL, echoing only the bazaar extension', () => {
    const verdict = catalogEntryOf(
      payload(
        'https://api.example/weather?city=Lima',
        { bazaar: getExtension(), 'payment-identifier': { id: 'secret-of-the-buyer' } },
        { description: 'd'.repeat(2000), serviceName: 'Weather Co', tags: ['weather', '\u0007bad'] },
      ),
      requirements(),
      Date.UTC(2026, 10, 25),
    ) as { entry: CatalogEntry }
    expect(verdict.entry.key).toBe('http GET https://api.example/weather')
    expect(verdict.entry.item).toMatchObject({
      resource: 'https://api.example/weather',
      lastUpdated: '2026-11-25T00:00:00.000Z',
      serviceName: 'Weather Co',
      tags: ['weather'],
      metadata: { method: 'GET', serviceName: 'Weather Co' },
    })
    expect(Object.keys(verdict.entry.item.extensions!)).toEqual(['bazaar'])
    expect(verdict.entry.item.description).toHaveLength(catalogLimits.descriptionChars)
  })

  test('refused: an info that fails its schema, a schema that is not one, oversize parts; nothing without an extension', () => {
    const url = 'https://api.example/weather'
    expect(catalogEntryOf(payload(url, {}), requirements(), 0)).toBeUndefined()
    expect(catalogEntryOf(payload(url, { bazaar: getExtension({ city: 7 }) }), requirements(), 0)).toEqual({
      rejected: 'the bazaar extension is invalid: /input/queryParams/city: must be string',
    })
    expect(catalogEntryOf(payload(url, { bazaar: 'a string' }), requirements(), 0)).toEqual({
      rejected: 'the bazaar extension is not an object',
    })
    const external = getExtension()
    external.schema.$ref = 'https://evil.example/schema.json'
    expect(catalogEntryOf(payload(url, { bazaar: external }), requirements(), 0)).toMatchObject({
      rejected: expect.stringContaining('external'),
    })
    const huge = getExtension({ city: 'x'.repeat(catalogLimits.extensionChars) })
    expect(catalogEntryOf(payload(url, { bazaar: huge }), requirements(), 0)).toMatchObject({
      rejected: expect.stringContaining(`more than ${catalogLimits.extensionChars}`),
    })
    const long = `https://api.example/${'p'.repeat(catalogLimits.resourceUrlChars)}`
    expect(catalogEntryOf(payload(long, { bazaar: getExtension() }), requirements(), 0)).toMatchObject({
      rejected: expect.stringContaining('longer than'),
    })
    expect(catalogEntryOf(payload('not a url', { bazaar: getExtension() }), requirements(), 0)).toEqual({
      rejected: "the payment's resource.url is not a URL",
    })
    const bigAccepts = { ...requirements(), extra: { blob: 'b'.repeat(catalogLimits.entryChars) } }
    expect(catalogEntryOf(payload(url, { bazaar: getExtension() }), bigAccepts, 0)).toMatchObject({
      rejected: expect.stringContaining(`more than ${catalogLimits.entryChars}`),
    })
  })

  test('an MCP tool is one entry per server URL and tool name, typed mcp', () => {
    const { bazaar } = declareDiscoveryExtension({
      toolName: 'forecast',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
      example: { city: 'Lima' },
    }) as any
    const verdict = catalogEntryOf(payload('https://tools.example/mcp', { bazaar }), requirements(), 0) as {
      entry: CatalogEntry
    }
    expect(verdict.entry).toMatchObject({ key: 'mcp forecast https://tools.example/mcp', type: 'mcp' })
    expect(verdict.entry.item).toMatchObject({
      type: 'mcp',
      discoveryInfo: { input: { type: 'mcp', toolName: 'forecast' } },
      metadata: { toolName: 'forecast' },
    })
  })

  test("the schema compiled once judges as @x402/extensions' validateDiscoveryExtension does", () => {
    const withSchema = (patch: (bazaar: any) => void) => {
      const bazaar = getExtension()
      patch(bazaar)
      return bazaar
    }
    const { bazaar: post } = declareDiscoveryExtension({
      bodyType: 'json',
      input: { text: 'hi' },
      inputSchema: { properties: { text: { type: 'string' } }, required: ['text'] },
    }) as any
    post.info.input.method = 'POST'
    const cases = [
      getExtension(),
      getExtension({ city: 7 }),
      getExtension({ town: 'Lima' }),
      post,
      { ...post, info: { ...post.info, input: { ...post.info.input, body: {} } } },
      withSchema((b) => (b.schema.$ref = 'https://evil.example/schema.json')),
      withSchema((b) => (b.schema.properties.input.$id = 'file:///etc/passwd')),
      withSchema((b) => (b.schema.properties.input.$ref = '#/$defs/nothing')),
      withSchema((b) => (b.schema.type = 'not-a-type')),
      withSchema((b) => (b.info.input.type = 'grpc')),
    ]
    for (const extension of cases) {
      const spec = validateDiscoveryExtensionSpec(extension)
      const theirs = validateDiscoveryExtension(extension)
      const ours = discoveryExtensionProblem(extension)
      expect({ extension, valid: ours === undefined }).toEqual({ extension, valid: spec.valid && theirs.valid })
      if (spec.valid && !theirs.valid) expect(ours).toBe(theirs.errors!.slice(0, 3).join('; '))
    }
  })

  test('a routeTemplate that escapes the path is ignored: the entry is the concrete URL', () => {
    const hostile = { ...getExtension(), routeTemplate: '/../admin' }
    const verdict = catalogEntryOf(payload('https://api.example/weather/Lima', { bazaar: hostile }), requirements(), 0)
    expect((verdict as { entry: CatalogEntry }).entry.item.resource).toBe('https://api.example/weather/Lima')
  })
})

let database: OpenedDatabase
let dir: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-bazaar-'))
  database = await openDatabase(join(dir, 'svc.db'))
})
afterAll(async () => {
  await database?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.each([
  ['memory', () => createMemoryCatalogStore(3)],
  ['SQLite', () => createSqliteCatalogStore(database.db, 3)],
] as const)('the %s store', (_name, makeStore: () => CatalogStore) => {
  test('keeps the latest listing of a resource, at most 3 resources, the least recently updated evicted', async () => {
    const store = makeStore()
    const payTo = `0x${'a'.repeat(39)}${_name === 'memory' ? '1' : '2'}`
    const urls = ['a', 'b', 'c', 'd'].map((name) => `https://api.example/${name}`)
    await store.put([entry(urls[0]!, 1000, payTo), entry(urls[1]!, 2000, payTo), entry(urls[2]!, 3000, payTo)])
    // a is paid again (its newer terms replace the old), then d arrives: b, now the least recently updated, goes.
    const again = entry(urls[0]!, 4000, payTo)
    again.item.accepts = [requirements(payTo, '20000')]
    await store.put([again])
    await store.put([entry(urls[3]!, 5000, payTo)])
    const listed = await store.list({ payTo: payTo.toUpperCase().replace('0X', '0x'), limit: 10, offset: 0 })
    expect(listed.total).toBe(3)
    expect(listed.items.map((item) => item.resource)).toEqual([urls[3], urls[0], urls[2]])
    expect(listed.items[1]!.accepts).toEqual([requirements(payTo, '20000')])
    expect((await store.list({ payTo, limit: 1, offset: 1 })).items.map((item) => item.resource)).toEqual([urls[0]])
    expect((await store.list({ payTo, extensions: 'bazaar', limit: 10, offset: 0 })).total).toBe(3)
    expect((await store.list({ payTo, extensions: 'siwx', limit: 10, offset: 0 })).total).toBe(0)
    expect((await store.search('API.EXAMPLE/D', { payTo }, 10)).items.map((item) => item.resource)).toEqual([urls[3]])
  })
})

test('the catalog logs a refused extension once, not once per payment, and catalogs nothing for it', async () => {
  const lines: string[] = []
  const catalog = createBazaarCatalog({ log: (line) => lines.push(line) })
  const bad = payload('https://api.example/w', { bazaar: getExtension({ city: 7 }) })
  for (let i = 0; i < 3; i++) catalog.record(bad, requirements())
  catalog.record(payload('https://api.example/ok', { bazaar: getExtension() }), requirements())
  const listed = await catalog.list({ limit: 10, offset: 0 })
  expect(listed.items.map((item) => item.resource)).toEqual(['https://api.example/ok'])
  expect(lines).toEqual([
    'facilitator: https://api.example/w is not cataloged: the bazaar extension is invalid: /input/queryParams/city: must be string',
  ])
})
