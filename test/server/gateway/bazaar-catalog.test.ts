/**
 * The bazaar catalog of svc's facilitator, seen from outside: buyers pay svc's gateway with the official client,
 * and `withBazaar(new HTTPFacilitatorClient({ url }))` (as `@x402/extensions` documents it) lists what they paid
 * for, with its accepts and the discovery info (input and output schemas); x402's own e2e checks pass; the listing
 * pages; a bad query is a 400; and an `@x402/express` seller declaring the bazaar, paid through svc's facilitator,
 * is listed too.
 */
import express from 'express'
import { HTTPFacilitatorClient } from '@x402/core/http'
import { x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { bazaarResourceServerExtension, declareDiscoveryExtension, withBazaar } from '@x402/extensions/bazaar'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { listen, type Listening } from '../../../core/http.js'
import { validateFacilitatorBazaar } from '../../helpers/bazaar-validator.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  type GatewayStack,
  type Seller,
} from './helpers.js'

let stack: GatewayStack
let seller: Seller
let gateway: string
let pay: typeof fetch

const forecast = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number' } },
  required: ['city', 'temp'],
}
const echoInput = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] }

beforeAll(async () => {
  stack = await startGatewayStack()
  seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, stack.upstream.url)
  gateway = api.gateway
  const accepts = [sandboxAccept(stack.services)]
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts,
    request_schema: null,
    response_schema: forecast,
    description: 'Weather in a city',
  })
  await addEndpoint(stack.t, seller, api.id, {
    method: 'POST',
    path_pattern: '/echo',
    accepts,
    request_schema: echoInput,
    response_schema: { type: 'object' },
  })
  await addEndpoint(stack.t, seller, api.id, { method: 'GET', path_pattern: '/echo/a', accepts })
  pay = payingFetch(stack.services, stack.buyer)
})
afterAll(() => stack?.stop())

const bazaar = () => withBazaar(new HTTPFacilitatorClient({ url: stack.services.facilitatorUrl })).extensions.bazaar

async function paid(url: string, init?: RequestInit) {
  const response = await pay(url, init)
  await response.arrayBuffer()
  expect(response.status).toBe(200)
}

describe("svc's facilitator catalogs what its buyers pay for", () => {
  test('withBazaar lists a paid resource with its accepts and its discovery info', async () => {
    await paid(`${gateway}/weather/Lima`)
    await paid(`${gateway}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi' }),
    })

    const { x402Version, items, pagination } = await bazaar().listResources({ type: 'http', payTo: seller.payTo })
    expect(x402Version).toBe(2)
    expect(pagination).toEqual({ limit: 100, offset: 0, total: 2 })
    // Newest first; the dynamic route is listed once, under its template.
    expect(items.map((item) => item.resource)).toEqual([`${gateway}/echo`, `${gateway}/weather/:city`])
    const weather = items[1]!
    expect(weather).toMatchObject({
      type: 'http',
      x402Version: 2,
      description: 'Weather in a city',
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:845320402',
          amount: '10000',
          asset: stack.services.sandboxChain.usdc.address,
          payTo: seller.payTo,
        },
      ],
      metadata: { method: 'GET', routeTemplate: '/weather/:city', description: 'Weather in a city' },
    })
    expect(Date.parse(weather.lastUpdated)).toBeGreaterThan(Date.now() - 60_000)
    const info = (weather.extensions as any).bazaar.info
    expect(info.input).toMatchObject({ type: 'http', method: 'GET', pathParams: { city: 'Lima' } })
    expect(info.output).toMatchObject({ type: 'json', example: { city: 'string', temp: 1 } })
    // The output's schema is the endpoint's response schema.
    expect((weather.extensions as any).bazaar.schema.properties.output.properties.example).toEqual(forecast)
    expect((weather as any).discoveryInfo).toEqual(info)
    const echo = items[0] as any
    expect(echo.discoveryInfo.input).toMatchObject({ type: 'http', method: 'POST', bodyType: 'json' })
    // Its example body satisfies its schema (a facilitator validates one against the other before cataloging).
    expect(echo.discoveryInfo.input.body).toEqual({ text: 'string' })
    expect(echo.extensions.bazaar.schema.properties.input.properties.body).toEqual(echoInput)
  })

  test("x402's e2e checks of a facilitator's bazaar pass", async () => {
    await paid(`${gateway}/weather/Quito`)
    const result = await validateFacilitatorBazaar(stack.services.facilitatorUrl, [
      { url: `${gateway}/weather/:city` },
      { url: `${gateway}/echo` },
    ])
    expect(result).toEqual({ success: true, missing: [], mismatched: [], errors: [] })
    // And the check fails on a resource nobody paid for.
    const missing = await validateFacilitatorBazaar(stack.services.facilitatorUrl, [{ url: `${gateway}/nothing` }])
    expect(missing.missing).toEqual([`${gateway}/nothing`])
  })

  test('a resource paid again keeps one entry with the latest accepts; the listing pages', async () => {
    await paid(`${gateway}/echo/a`)
    await paid(`${gateway}/weather/Oslo`)
    const mine = { payTo: seller.payTo }
    const all = await bazaar().listResources(mine)
    expect(all.pagination.total).toBe(3)
    expect(all.items[0]!.resource).toBe(`${gateway}/weather/:city`)
    expect((all.items[0]!.extensions as any).bazaar.info.input.pathParams).toEqual({ city: 'Oslo' })
    const first = await bazaar().listResources({ ...mine, limit: 2 })
    const second = await bazaar().listResources({ ...mine, limit: 2, offset: 2 })
    expect(first.pagination).toEqual({ limit: 2, offset: 0, total: 3 })
    expect(second.pagination).toEqual({ limit: 2, offset: 2, total: 3 })
    expect([...first.items, ...second.items].map((item) => item.resource)).toEqual(
      all.items.map((item) => item.resource),
    )
    expect((await bazaar().listResources({ ...mine, offset: 3 })).items).toEqual([])
    expect((await bazaar().listResources({ ...mine, type: 'mcp' })).pagination.total).toBe(0)
    expect((await bazaar().listResources({ ...mine, limit: 5000 })).pagination.limit).toBe(1000)
    const found = await bazaar().search({ query: 'WEATHER IN A', payTo: seller.payTo })
    expect(found.resources.map((item) => item.resource)).toEqual([`${gateway}/weather/:city`])
  })

  test('a payment verified but never settled (its upstream failed) lists nothing; a settled one lists once', async () => {
    const { seller: other, api } = await stack.apiWith('/status/{code}', [sandboxAccept(stack.services)])
    const failed = await pay(`${api.gateway}/status/500`)
    await failed.arrayBuffer()
    expect(failed.status).toBe(502)
    expect((await bazaar().listResources({ payTo: other.payTo })).pagination.total).toBe(0)
    await addEndpoint(stack.t, other, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(stack.services)],
    })
    await paid(`${api.gateway}/weather/Lima`)
    const listed = await bazaar().listResources({ payTo: other.payTo })
    expect(listed.items.map((item) => item.resource)).toEqual([`${api.gateway}/weather/:city`])
  })

  test.each([
    ['limit=abc', 'limit must be an integer of at least 1, got "abc"'],
    ['limit=0', 'limit must be an integer of at least 1, got "0"'],
    ['limit=-1', 'limit must be an integer of at least 1, got "-1"'],
    ['offset=1.5', 'offset must be an integer of at least 0, got "1.5"'],
    ['limit=1&limit=2', 'the query parameter "limit" is given more than once'],
    ['type=', 'the query parameter "type" is empty'],
  ])('GET /discovery/resources?%s is a 400 JSON error', async (query, error) => {
    const response = await fetch(`${stack.services.facilitatorUrl}/discovery/resources?${query}`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error })
  })

  test('GET /discovery/search without a query is a 400 JSON error', async () => {
    const response = await fetch(`${stack.services.facilitatorUrl}/discovery/search`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ error: 'the query parameter "query" is required' })
  })
})

describe("an @x402/express seller declaring the bazaar, paid through svc's facilitator", () => {
  let foreign: Listening
  beforeAll(async () => {
    const { services } = stack
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: services.facilitatorUrl }))
      .register('eip155:845320402', new ExactEvmScheme())
      .registerExtension(bazaarResourceServerExtension)
    const app = express()
    const price = {
      amount: '10000',
      asset: services.sandboxChain.usdc.address,
      extra: { name: 'USDC', version: '2', assetTransferMethod: 'eip3009' },
    }
    app.use(
      paymentMiddleware(
        {
          'GET /joke': {
            accepts: { scheme: 'exact', network: 'eip155:845320402', payTo: seller.payTo, price },
            description: 'A paid joke',
            extensions: declareDiscoveryExtension({
              input: { topic: 'cats' },
              inputSchema: { properties: { topic: { type: 'string' } }, required: ['topic'] },
              output: { example: { joke: 'a paid one' } },
            }),
          },
        },
        server,
      ),
    )
    app.get('/joke', (_req, res) => void res.json({ joke: 'a paid one' }))
    foreign = await listen(app)
  })
  afterAll(() => foreign?.close())

  test('is listed with its declared input and output', async () => {
    const response = await payingFetch(stack.services, stack.buyer)(`${foreign.url}/joke?topic=cats`)
    expect(response.status).toBe(200)
    await response.arrayBuffer()
    const { items } = await bazaar().listResources({ type: 'http' })
    const joke = items.find((item) => item.resource === `${foreign.url}/joke`)
    expect(joke).toMatchObject({ description: 'A paid joke', accepts: [{ payTo: seller.payTo, amount: '10000' }] })
    expect((joke as any).discoveryInfo).toMatchObject({
      input: { type: 'http', method: 'GET', queryParams: { topic: 'cats' } },
      output: { type: 'json', example: { joke: 'a paid one' } },
    })
  })
})
