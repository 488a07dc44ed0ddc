import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { LocalAccount } from 'viem'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { gatewayHopHeader } from '../../../server/upstream/own-listeners.js'
import type { TestServer } from '../../helpers/control.js'
import {
  addEndpoint,
  createApi,
  errorOf,
  newSeller,
  payingFetch,
  sandboxAccept,
  type startUpstream,
  usdcBalance,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let stack: GatewayStack | undefined
let buyer: LocalAccount

beforeAll(async () => {
  ;({ services, t, upstream, buyer } = stack = await startGatewayStack())
})
afterAll(async () => {
  await stack?.stop()
})

/** An API whose upstream is `upstreamUrl`, written to the database directly (the control plane refuses svc's own listeners). */
async function apiReaching(upstreamUrl: string, path: string, method = 'GET') {
  const seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url)
  await t.server.database.db
    .updateTable('apis')
    .set({ upstream_base_url: upstreamUrl })
    .where('id', '=', api.id)
    .execute()
  await addEndpoint(t, seller, api.id, { method, path_pattern: path, accepts: [sandboxAccept(services)] })
  return api
}

describe('local-only routes through the gateway', () => {
  test('a paying buyer does not read /dev/outbox through an API whose upstream is svc itself', async () => {
    await t.signup({ verified: false })
    const direct = await localFetch(`${t.server.controlUrl}/dev/outbox`)
    expect(direct.status).toBe(200)
    expect(((await direct.json()) as { messages: unknown[] }).messages.length).toBeGreaterThan(0)

    const api = await apiReaching(`http://127.0.0.1:${t.server.port}`, '/dev/outbox')
    const response = await payingFetch(services, buyer)(`${api.gateway}/dev/outbox`)
    const text = await response.text()
    expect(response.status).not.toBe(200)
    expect(text).not.toContain('messages')
  })

  test('a paying buyer does not change the Sandbox (faults, snapshots, time) through an API whose upstream is svc', async () => {
    const snapshotsBefore = await t.call('/dev/snapshots', { host: 'development' })
    const timeBefore = await t.call('/dev/time', { host: 'development' })
    for (const path of ['/dev/faults', '/dev/snapshots', '/dev/time/advance', '/dev/chain/restart']) {
      const api = await apiReaching(`http://sandbox.localhost:${t.server.port}`, path, 'POST')
      const response = await payingFetch(services, buyer)(`${api.gateway}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-svc-environment': 'development' },
        body: JSON.stringify({ kind: 'upstream', drop: true, seconds: 3600 }),
      })
      expect([path, response.status < 300]).toEqual([path, false])
    }
    expect(await services.faults.list()).toEqual([])
    expect(await t.call('/dev/snapshots', { host: 'development' })).toMatchObject({ body: snapshotsBefore.body })
    expect((await t.call('/dev/time', { host: 'development' })).body.offset_seconds).toBe(
      timeBefore.body.offset_seconds,
    )
  })

  test('a request that bears the gateway header is never local, whatever environment it names', async () => {
    const routes = [
      ['GET', '/dev/faults'],
      ['POST', '/dev/faults'],
      ['DELETE', '/dev/faults'],
      ['DELETE', '/dev/faults/flt_x'],
      ['POST', '/dev/chain/restart'],
      ['GET', '/dev/snapshots'],
      ['POST', '/dev/snapshots'],
      ['POST', '/dev/snapshots/snap_x/revert'],
      ['GET', '/dev/time'],
      ['POST', '/dev/time/advance'],
    ] as const
    for (const [method, path] of routes)
      for (const environment of ['development', 'production'] as const) {
        const answer = await t.call(path, {
          host: 'development',
          method,
          environment,
          headers: { [gatewayHopHeader]: '1' },
          ...(method === 'POST' ? { body: { kind: 'upstream', drop: true, seconds: 60 } } : {}),
        })
        expect([method, path, answer.status, answer.body.error]).toEqual([
          method,
          path,
          403,
          expect.stringMatching(/: from this machine only$/),
        ])
      }
  })

  test('X-Svc-Environment does not make the production control plane the Sandbox for these routes', async () => {
    for (const [method, path] of [
      ['GET', '/dev/faults'],
      ['GET', '/dev/snapshots'],
      ['POST', '/dev/time/advance'],
    ] as const) {
      const answer = await t.call(path, {
        method,
        environment: 'development',
        ...(method === 'POST' ? { body: { seconds: 60 } } : {}),
      })
      expect([path, answer.status, answer.body.error]).toEqual([
        path,
        403,
        expect.stringMatching(/: for the Sandbox only \(call http:\/\/sandbox\.localhost:\d+\)$/),
      ])
    }
  })

  test('a buyer cannot forge or remove the gateway marker: the upstream always gets it, once', async () => {
    const api = await apiReaching(upstream.url, '/echo')
    const response = await payingFetch(services, buyer)(`${api.gateway}/echo`, {
      headers: { 'x-svc-via-gateway': 'forged' },
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { headers: Record<string, string> }).headers['x-svc-via-gateway']).toBe('1')
  })
})

describe("svc's own listeners as upstreams", () => {
  const spellings = (port: number) => [
    `http://127.0.0.1:${port}`,
    `http://localhost:${port}/v1`,
    `http://api.localhost:${port}`,
    `http://anything.dev.localhost.:${port}`,
    `http://0.0.0.0:${port}`,
    `http://127.1:${port}`,
    `http://2130706433:${port}`,
    `http://0x7f.1:${port}`,
    `http://127.8.9.10:${port}`,
    `http://[::1]:${port}`,
    `http://[::]:${port}`,
    `http://[::ffff:127.0.0.1]:${port}`,
    `http://user:pass@127.0.0.1:${port}`,
    `http://user@localhost:${port}`,
  ]
  const listeners = () =>
    [
      [new URL(t.server.controlUrl).port, "svc's control plane and gateway"],
      [new URL(services.rpcUrl).port, "svc's chain RPC"],
      [new URL(services.chainManagerUrl).port, "svc's chain manager"],
      [new URL(services.facilitatorUrl).port, "svc's facilitator"],
    ] as const

  test('refused at creation with 400 naming the listener, in every spelling of loopback', async () => {
    const seller = await newSeller(t)
    for (const [port, name] of listeners())
      for (const url of spellings(Number(port))) {
        const body = {
          name: 'Own',
          slug: `own-${process.pid}-${port}`,
          upstream_base_url: url,
          pay_to_mode: 'user_wallet',
          pay_to_address: seller.payTo,
        }
        const { status, body: answer } = await t.call('/apis', { jwt: seller.jwt, environment: 'development', body })
        expect([url, status, answer.error]).toEqual([
          url,
          400,
          `upstream_base_url: targets ${name}; an upstream must be a service of your own`,
        ])
      }
  })

  test('refused at update; other loopback ports (the seller’s own dev server) keep working', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    for (const [port, name] of listeners()) {
      const { status, body } = await t.call(`/apis/${api.id}`, {
        jwt: seller.jwt,
        environment: 'development',
        method: 'PUT',
        body: { upstream_base_url: `http://localhost:${port}` },
      })
      expect([status, body.error]).toEqual([
        400,
        `upstream_base_url: targets ${name}; an upstream must be a service of your own`,
      ])
    }
    const other = upstream.url.replace('127.0.0.1', 'localhost')
    const updated = await t.call(`/apis/${api.id}`, {
      jwt: seller.jwt,
      environment: 'development',
      method: 'PUT',
      body: { upstream_base_url: other },
    })
    expect([updated.status, updated.body.upstream_base_url]).toEqual([200, other])
  })
})

describe('at connect time', () => {
  test("an upstream that reaches svc's own listener (saved before, or resolving there now) is refused with 502 and no charge", async () => {
    for (const base of [
      services.chainManagerUrl.replace('127.0.0.1', 'localhost'),
      services.facilitatorUrl,
      `http://[::ffff:127.0.0.1]:${t.server.port}`,
    ]) {
      const api = await apiReaching(base, '/{rest}')
      const before = await usdcBalance(services, buyer.address)
      const response = await payingFetch(services, buyer)(`${api.gateway}/anything`)
      expect(response.status).toBe(502)
      const error = await errorOf(response)
      expect(error).toBe('the upstream is not allowed; the payment was not settled')
      expect(error).not.toContain(new URL(base).port)
      expect(await usdcBalance(services, buyer.address)).toBe(before)
    }
  })

  test('other loopback upstreams are forwarded as before', async () => {
    const api = await apiReaching(upstream.url.replace('127.0.0.1', 'localhost'), '/weather/{city}')
    const calls = upstream.calls.length
    const response = await payingFetch(services, buyer)(`${api.gateway}/weather/Oslo`)
    expect(response.status).toBe(200)
    expect(upstream.calls.length - calls).toBe(1)
  })
})

describe('the schema probe', () => {
  /** An upstream that redirects `/to/{n}` to the n-th of `targets`. */
  async function startRedirector(targets: () => string[]): Promise<{ url: string; server: Server }> {
    const server = createServer((req, res) =>
      res.writeHead(302, { location: targets()[Number(req.url!.split('/')[2])]! }).end(),
    )
    server.listen(0, '127.0.0.1')
    await new Promise((resolve) => server.once('listening', resolve))
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
  }

  test("does not follow a redirect onto svc's own listener; other redirects are followed", async () => {
    await t.signup({ verified: false })
    const redirector = await startRedirector(() => [
      `http://localhost:${t.server.port}/dev/outbox`,
      `${upstream.url}/weather/Oslo`,
    ])
    try {
      const seller = await newSeller(t)
      const api = await createApi(t, seller, redirector.url)
      const own = await t.call(`/apis/${api.id}/endpoints`, {
        jwt: seller.jwt,
        environment: 'development',
        body: { method: 'GET', path_pattern: '/to/0', accepts: [sandboxAccept(services)] },
      })
      expect(own.status).toBe(201)
      expect(own.body.response_schema).toEqual({})
      const other = await t.call(`/apis/${api.id}/endpoints`, {
        jwt: seller.jwt,
        environment: 'development',
        body: { method: 'GET', path_pattern: '/to/1', accepts: [sandboxAccept(services)] },
      })
      expect(other.status).toBe(201)
      expect(JSON.stringify(other.body.response_schema)).toContain('temp')
    } finally {
      redirector.server.closeAllConnections()
      await new Promise((resolve) => redirector.server.close(resolve))
    }
  })
})
