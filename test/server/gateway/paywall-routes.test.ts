/**
 * The paywall seen by HTTP clients (no browser): only a browser's unpaid GET (Accept text/html and a Mozilla user
 * agent, as x402's servers judge) gets the HTML 402; every other client keeps the JSON 402 with the same
 * PAYMENT-REQUIRED. svc's own routes on the gateway host: the script, and on Sandbox APIs only an RPC that serves a
 * public RPC's methods (never Anvil's) and a faucet of a fixed amount.
 */
import { decodePaymentRequiredHeader } from '@x402/core/http'
import { numberToHex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { Agent, fetch } from 'undici'
import { localFetch, localhostLookup } from '../../../sdk/local-fetch.js'
import { newAccount } from '../../helpers/payments.js'
import { browserHeaders } from '../../browser/paywall-stack.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
} from './helpers.js'

let stack: GatewayStack
let gateway: string
let productionGateway: string

beforeAll(async () => {
  stack = await startGatewayStack()
  const seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, stack.upstream.url)
  gateway = api.gateway
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(stack.services, '10000')],
  })
  await addEndpoint(stack.t, seller, api.id, {
    method: 'POST',
    path_pattern: '/echo',
    accepts: [sandboxAccept(stack.services, '10000')],
  })
  productionGateway = (await createApi(stack.t, seller, stack.upstream.url, 'production')).gateway
})

afterAll(async () => {
  await stack?.stop()
})

const rpc = (url: string, body: unknown) =>
  localFetch(`${url}/__svc/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

describe('who gets the paywall page', () => {
  test("a browser's unpaid GET: the HTML page, with the JSON 402's status and PAYMENT-REQUIRED", async () => {
    const json = await localFetch(`${gateway}/weather/paris`)
    const page = await localFetch(`${gateway}/weather/paris`, { headers: browserHeaders })
    expect(page.status).toBe(402)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'")
    const html = await page.text()
    expect(html).toContain('data-testid="price">0.01 USDC<')
    expect(html).toContain('<script src="/__svc/paywall.js" defer></script>')
    // The one thing the page loads is its script, from this host (its icon is none, so no request for one).
    expect(html.match(/\b(src|href|action)="[^"]*"/g)).toEqual(['href="data:,"', 'src="/__svc/paywall.js"'])
    expect(decodePaymentRequiredHeader(page.headers.get('payment-required')!)).toEqual(
      decodePaymentRequiredHeader(json.headers.get('payment-required')!),
    )
    expect(json.headers.get('content-type')).toContain('application/json')
    expect(await json.json()).toMatchObject({ x402Version: 2, accepts: [{ amount: '10000' }] })
  })

  test.each([
    ['no headers', {}],
    ['curl', { 'user-agent': 'curl/8.5.0', accept: '*/*' }],
    ['a Mozilla fetch asking for JSON', { 'user-agent': browserHeaders['user-agent'], accept: 'application/json' }],
    ['text/html from a non-browser', { 'user-agent': 'python-requests/2.32', accept: 'text/html' }],
  ])('%s: the JSON 402', async (_name, headers) => {
    const response = await localFetch(`${gateway}/weather/paris`, { headers })
    expect(response.status).toBe(402)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(await response.json()).toMatchObject({ x402Version: 2 })
  })

  test('a browser paying, or posting, or asking for what is not sold: JSON as before', async () => {
    const paying = await localFetch(`${gateway}/weather/paris`, {
      headers: { ...browserHeaders, 'payment-signature': 'not-a-payment' },
    })
    expect(paying.status).toBe(402)
    expect((await paying.json()) as { error: string }).toHaveProperty('error')
    const posting = await localFetch(`${gateway}/echo`, { method: 'POST', headers: browserHeaders, body: '{}' })
    expect(posting.status).toBe(402)
    expect(posting.headers.get('content-type')).toContain('application/json')
    await posting.arrayBuffer()
    const unknown = await localFetch(`${gateway}/nothing`, { headers: browserHeaders })
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ error: 'no paid route for GET /nothing' })
  })
})

describe("svc's own routes on the gateway host", () => {
  test('the script: built, gzipped for browsers that take it', async () => {
    const response = await localFetch(`${gateway}/__svc/paywall.js`, { headers: { 'accept-encoding': 'gzip' } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(response.headers.get('content-encoding')).toBe('gzip')
    expect((await response.text()).length).toBeGreaterThan(10_000)
    const missing = await localFetch(`${gateway}/__svc/nothing`)
    expect(missing.status).toBe(404)
    expect(await missing.json()).toEqual({ error: 'no svc route /__svc/nothing' })
  })

  test("the RPC serves a public RPC's methods on Sandbox APIs, never Anvil's", async () => {
    const chainId = await rpc(gateway, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })
    expect(await chainId.json()).toMatchObject({ id: 1, result: numberToHex(845320402) })
    const mint = await rpc(gateway, {
      jsonrpc: '2.0',
      id: 2,
      method: 'anvil_setBalance',
      params: [newAccount().address, '0xffff'],
    })
    expect(await mint.json()).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32601, message: "svc's paywall RPC does not serve anvil_setBalance" },
    })
    const batch = await rpc(
      gateway,
      Array.from({ length: 21 }, (_, id) => ({ jsonrpc: '2.0', id, method: 'eth_chainId' })),
    )
    expect(batch.status).toBe(400)
    expect(await batch.json()).toEqual({ error: 'a batch holds 1 to 20 calls' })
    const notJson = await localFetch(`${gateway}/__svc/rpc`, { method: 'POST', body: '{' })
    expect(notJson.status).toBe(400)
    await notJson.arrayBuffer()
  })

  test('the faucet gives the demo wallet 10 USDC on Sandbox APIs; bad input is a 400', async () => {
    const address = newAccount().address
    const funded = await localFetch(`${gateway}/__svc/faucet`, { method: 'POST', body: JSON.stringify({ address }) })
    expect(funded.status).toBe(200)
    expect(await funded.json()).toMatchObject({ address, funded_usdc: '10' })
    expect(await usdcBalance(stack.services, address)).toBe(10_000_000n)
    const bad = await localFetch(`${gateway}/__svc/faucet`, { method: 'POST', body: '{"address":"0x12"}' })
    expect(bad.status).toBe(400)
    expect(await bad.json()).toEqual({ error: 'address must be an 0x address of 40 hex digits' })
  })

  test('a production API has neither the RPC nor the faucet', async () => {
    const faucet = await localFetch(`${productionGateway}/__svc/faucet`, {
      method: 'POST',
      body: JSON.stringify({ address: newAccount().address }),
    })
    expect(faucet.status).toBe(404)
    expect((await faucet.json()) as { error: string }).toEqual({ error: expect.stringContaining('Sandbox APIs only') })
    const chain = await rpc(productionGateway, { jsonrpc: '2.0', id: 1, method: 'eth_chainId' })
    expect(chain.status).toBe(404)
    await chain.arrayBuffer()
  })

  test("the Sandbox control plane's /dev/rpc is the same public RPC; a 404 on the production control plane", async () => {
    const call = { jsonrpc: '2.0', id: 3, method: 'eth_chainId' }
    const served = await stack.t.call('/dev/rpc', { host: 'development', body: call })
    expect(served).toMatchObject({ status: 200, body: { id: 3, result: numberToHex(845320402) } })
    const mint = await stack.t.call('/dev/rpc', {
      host: 'development',
      body: { jsonrpc: '2.0', id: 4, method: 'evm_increaseTime', params: [60] },
    })
    expect(mint.body).toEqual({
      jsonrpc: '2.0',
      id: 4,
      error: { code: -32601, message: "svc's Sandbox RPC does not serve evm_increaseTime" },
    })
    expect((await stack.t.call('/dev/rpc', { body: call })).status).toBe(404)
    // Not svc serve: local-dev names Anvil's own RPC (this machine's, every method).
    expect((await stack.t.call('/config/local-dev')).body.rpc_url).toBe(stack.services.rpcUrl)
  })

  test('a body over the RPC limit: 400, and the connection closed, so the next request on it is not held', async () => {
    // One connection: the second request goes where the first left its unread megabyte (kept alive, it waited 65 s).
    const agent = new Agent({ connect: { lookup: localhostLookup as never }, connections: 1 })
    const url = `${stack.t.server.sandboxControlUrl}/dev/rpc`
    const call = { jsonrpc: '2.0', id: 5, method: 'eth_chainId' }
    try {
      const big = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(1_100_000),
        dispatcher: agent,
      })
      expect(big.status).toBe(400)
      expect(big.headers.get('connection')).toBe('close')
      expect(await big.json()).toEqual({ error: 'the body is larger than 65536 bytes' })
      const next = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call),
        dispatcher: agent,
        signal: AbortSignal.timeout(10_000),
      })
      expect(await next.json()).toMatchObject({ id: 5, result: numberToHex(845320402) })
    } finally {
      await agent.close()
    }
  })
})
