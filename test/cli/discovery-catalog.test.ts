/**
 * `svc discovery catalog`: the bazaar catalog of the local svc's facilitator (or of `--facilitator URL`), read with
 * `withBazaar`, before and after a buyer pays with the official client; `svc discovery API_ID` is unchanged.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch as fetch } from '../../sdk/local-fetch.js'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { startUpstream } from '../server/gateway/helpers.js'
import { createCli, type Cli } from './harness.js'
import { createSellerApi, testPayTo } from '../helpers/seller-api.js'

let sandbox: TestSandbox
let upstream: Awaited<ReturnType<typeof startUpstream>>
let cli: Cli
let base: string[]
let apiId: string

beforeAll(async () => {
  ;[sandbox, upstream] = await Promise.all([startSandbox(), startUpstream()])
  const { api } = await createSellerApi(sandbox, {
    slug: 'weather',
    name: 'Weather',
    upstreamUrl: upstream.url,
    endpoints: [
      {
        path_pattern: '/weather/{city}',
        response_schema: { type: 'object', properties: { temp: { type: 'number' } } },
      },
    ],
  })
  apiId = api.id
  cli = createCli()
  base = ['--base-url', sandbox.sandboxControlUrl]
})
afterAll(async () => {
  await sandbox?.stop()
  await upstream?.stop()
})

describe('svc discovery catalog', () => {
  test('says nothing is listed yet, then lists what a buyer paid for', async () => {
    const empty = await cli.run([...base, 'discovery', 'catalog'])
    expect(empty).toMatchObject({ code: 0, stderr: '' })
    expect(empty.stdout).toContain(`nothing is cataloged at ${sandbox.facilitatorUrl} yet`)

    const paid = await sandbox.buyer.fetch(`${sandbox.gatewayUrl('weather')}/weather/Lima`)
    expect(paid.status).toBe(200)
    await paid.arrayBuffer()

    const resource = `${sandbox.gatewayUrl('weather')}/weather/:city`
    const page = await cli.json([...base, 'discovery', 'catalog', '--type', 'http'])
    expect(page.pagination).toEqual({ limit: 100, offset: 0, total: 1 })
    expect(page.items[0]).toMatchObject({ resource, accepts: [{ amount: '10000' }] })
    const human = await cli.ok([...base, 'discovery', 'catalog'])
    expect(human.split('\n')[0]).toMatch(/^RESOURCE\s+CALL\s+PRICE\s+PAY TO\s+UPDATED$/)
    expect(human).toContain(`${resource}  GET   0.01 USDC (exact)  ${testPayTo}`)
    // Another facilitator's catalog: here the same one, by its URL.
    const other = await cli.json(['discovery', 'catalog', '--facilitator', `${sandbox.facilitatorUrl}/`])
    expect(other.items.map((item: { resource: string }) => item.resource)).toEqual([resource])
  })

  test("svc up names its facilitator as the catalog's place; the Sandbox control plane's /dev/bazaar lists the same", async () => {
    const config = (await (await fetch(`${sandbox.sandboxControlUrl}/config/local-dev`)).json()) as {
      bazaar_url: string
    }
    expect(config.bazaar_url).toBe(sandbox.facilitatorUrl)
    const read = async (url: string) => (await fetch(`${url}/discovery/resources`)).json()
    expect(await read(`${sandbox.sandboxControlUrl}/dev/bazaar`)).toEqual(await read(sandbox.facilitatorUrl))
    const other = await fetch(`${sandbox.sandboxControlUrl}/dev/bazaar/settle`)
    expect(other.status).toBe(404)
    const bad = await fetch(`${sandbox.sandboxControlUrl}/dev/bazaar/discovery/resources?limit=x`)
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ error: 'limit must be an integer of at least 1, got "x"' })
    expect((await fetch(`${sandbox.controlUrl}/dev/bazaar/discovery/resources`)).status).toBe(404)
  })

  test('a bad flag is a usage error; a facilitator that does not answer is one line and exit 1', async () => {
    const bad = await cli.run([...base, 'discovery', 'catalog', '--limit', '0'])
    expect(bad.code).toBe(2)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1)
    const gone = await cli.run(['discovery', 'catalog', '--facilitator', 'http://127.0.0.1:9'])
    expect(gone.code).toBe(1)
    expect(gone.stderr.trim().split('\n')).toHaveLength(1)
    expect(gone.stderr).toContain('127.0.0.1:9')
  })

  test('svc discovery API_ID still shows where the documents are', async () => {
    const summary = await cli.json([...base, 'discovery', apiId], { SVC_API_KEY: sandbox.seller.apiKey })
    expect(summary.openapi_url).toContain('/openapi.json')
  })
})
