import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import { createUpstreamProxy } from '../../../server/upstream/proxy.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { rebindName } from '../../helpers/rebinding-dns.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import {
  addEndpoint,
  createApi,
  errorOf,
  newSeller,
  sandboxAccept,
  signedPaymentFor,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let stack: GatewayStack | undefined
let buyer: LocalAccount
/** An upstream that redirects: `/to?location=…` answers 302 with that Location (and Content-Location). */
let redirector: { server: Server; url: string }

beforeAll(async () => {
  ;({ services, t, buyer } = stack = await startGatewayStack())
  const server = createServer((req, res) => {
    const location = new URL(req.url!, 'http://x').searchParams.get('location') ?? '/'
    res
      .writeHead(302, { location, 'content-location': location, 'content-type': 'application/json' })
      .end('{"moved":true}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  redirector = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }
})
afterAll(async () => {
  redirector?.server.closeAllConnections()
  await new Promise((resolve) => redirector?.server.close(resolve))
  await stack?.stop()
})

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('a facilitator that does not answer', () => {
  test('is a 503 that does not name its address', async () => {
    const port = await closedPort()
    const production = await startTestServer({ chain: services, productionFacilitatorUrl: `http://127.0.0.1:${port}` })
    try {
      const seller = await newSeller(production)
      const api = await createApi(production, seller, redirector.url, 'production')
      const accept = {
        scheme: 'exact',
        network: 'eip155:8453',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        amount: '10000',
      }
      await addEndpoint(
        production,
        seller,
        api.id,
        { method: 'GET', path_pattern: '/to', accepts: [accept] },
        'production',
      )
      const response = await localFetch(`${api.gateway}/to`)
      expect(response.status).toBe(503)
      const error = await errorOf(response)
      expect(error).toBe('the facilitator of this API does not answer (ECONNREFUSED): retry in a moment')
      expect(error).not.toContain(String(port))
    } finally {
      await production.stop()
    }
  })
})

describe('an upstream redirect', () => {
  const redirectTo = async (base: string, location: string) => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, base)
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern: '/to', accepts: [sandboxAccept(services)] })
    const url = `${api.gateway}/to?location=${encodeURIComponent(location)}`
    const payment = await signedPaymentFor(services, buyer, url)
    const response = await localFetch(url, { redirect: 'manual', headers: { 'payment-signature': payment } })
    expect(await response.text()).toBe('{"moved":true}')
    return {
      status: response.status,
      location: response.headers.get('location'),
      contentLocation: response.headers.get('content-location'),
    }
  }

  test('onto the upstream’s own origin becomes the gateway path; it never names the upstream', async () => {
    const cases: [string, string, string | null][] = [
      [redirector.url, `${redirector.url}/login?next=%2Fa#top`, '/login?next=%2Fa#top'],
      [`${redirector.url}/v1/`, `${redirector.url}/v1/items/7`, '/items/7'],
      [`${redirector.url}/v1`, `${redirector.url}/v1`, '/'],
      [`${redirector.url}/v1`, `${redirector.url}/admin`, null],
      [redirector.url, `//${new URL(redirector.url).host}/x`, '/x'],
      [redirector.url, `${redirector.url.replace('http://', 'http://user:pass@')}//evil.test/`, '/evil.test/'],
    ]
    for (const [base, location, seen] of cases) {
      const answer = await redirectTo(base, location)
      expect([location, answer]).toEqual([location, { status: 302, location: seen, contentLocation: seen }])
    }
  })

  test('relative locations and other origins pass unchanged', async () => {
    for (const location of ['/elsewhere', 'next?page=2', 'https://example.com/docs'])
      expect((await redirectTo(redirector.url, location)).location).toBe(location)
  })
})

describe('DNS rebinding', () => {
  test('a name that resolves elsewhere when checked and to svc’s own listener when connecting is refused before anything is sent', async () => {
    const own = { calls: 0 }
    const listener = createServer((_req, res) => void (own.calls++, res.end('{"secret":true}')))
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
    const { port } = listener.address() as AddressInfo
    const lines: string[] = []
    const proxy = createUpstreamProxy({
      log: (line) => lines.push(line),
      ownListeners: () => new Map([[port, "svc's facilitator"]]),
    })
    const restoreDns = rebindName('rebound.test', { checked: '192.0.2.7', connected: '127.0.0.1' })
    const request = {
      method: 'GET',
      url: '/x',
      baseUrl: '',
      headers: {},
      protocol: 'http',
      remoteAddress: '127.0.0.1',
      body: Readable.from([]),
      signal: new AbortController().signal,
    }
    try {
      const answer = await proxy.forward(request, { origin: `http://rebound.test:${port}`, path: '/x' })
      expect(answer).toEqual({ ok: false, status: 502, error: 'the upstream is not allowed' })
    } finally {
      restoreDns()
      await proxy.close()
      listener.closeAllConnections()
      await new Promise((resolve) => listener.close(resolve))
    }
    expect(own.calls).toBe(0)
    expect(lines).toEqual([`upstream http://rebound.test:${port}/x refused: it reaches svc's facilitator`])
  })
})
