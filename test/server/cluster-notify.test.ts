/**
 * Three svc servers on one PostgreSQL database (issue 26 item 3, LISTEN/NOTIFY), in this test process on one chain:
 * what one writes, the others serve at once (their caches are kept by notifications, and a 404 reads again), a lost
 * listening connection leaves them correct, and a seller's event stream on one server carries the payments made
 * through the others, once each, in one order, resumed on another server with Last-Event-ID.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { get } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { openTestEventStream } from '../helpers/event-stream.js'
import { localFetch } from '../../sdk/local-fetch.js'
import type { PaymentEvent } from '../../sdk/types.js'
import { type RunningServer, startSvc } from '../../server/start/index.js'
import { newAccount } from '../helpers/payments.js'
import { startPostgres, testDialects, type TestPostgres } from '../helpers/postgres.js'
import { payingFetch, sandboxAccept, startUpstream } from './gateway/helpers.js'

const runs = testDialects().includes('postgres')

let postgres: TestPostgres
let services: ChainServices
let upstream: Awaited<ReturnType<typeof startUpstream>>
let dataDir: string
let a: RunningServer
let b: RunningServer
let c: RunningServer
let jwt: string
let userId: string
const buyer = newAccount()
const streams: (() => void)[] = []

beforeAll(async () => {
  if (!runs) return
  postgres = await startPostgres()
  const databaseUrl = await postgres.createDatabase()
  services = await startChainServices()
  upstream = await startUpstream()
  // One data dir for the install secrets: every server signs and checks the same JWTs.
  dataDir = mkdtempSync(join(tmpdir(), 'svc-cluster-'))
  a = (await startSvc({ mode: 'server', chain: services, databaseUrl, dataDir, log: () => {} })).server
  ;[b, c] = await Promise.all([
    startSvc({ mode: 'server', chain: services, databaseUrl, dataDir, log: () => {} }).then((svc) => svc.server),
    startSvc({ mode: 'server', chain: services, databaseUrl, dataDir, log: () => {} }).then((svc) => svc.server),
  ])
  await services.manager.fund(buyer.address, 'usdc', '100')
  const email = `cluster-${Date.now()}@example.test`
  const signup = await call(a, '/auth/signup', { body: { email, password: 'correct horse battery' } })
  const outbox = await call(a, `/dev/outbox?email=${encodeURIComponent(email)}`)
  await call(a, '/auth/verify-email', { body: { token: outbox.body.messages[0].token } })
  jwt = signup.body.token
  userId = signup.body.user.id
}, 120_000)
afterAll(async () => {
  for (const close of streams) close()
  for (const server of [a, b, c]) await server?.stop()
  await upstream?.stop()
  await services?.stop()
  await postgres?.stop()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

/** A control-plane call to `server` (the Sandbox's) as the seller. */
async function call(server: RunningServer, path: string, options: { method?: string; body?: unknown } = {}) {
  const response = await localFetch(`${server.sandboxControlUrl}${path}`, {
    method: options.method ?? (options.body === undefined ? 'GET' : 'POST'),
    headers: {
      ...(jwt ? { authorization: `Bearer ${jwt}`, 'x-svc-environment': 'development' } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  })
  return { status: response.status, body: (await response.json().catch(() => null)) as any }
}

let apis = 0
/** An API created through `server`, with no endpoint. */
async function createApi(server: RunningServer) {
  const slug = `cluster-${process.pid}-${++apis}`
  const { status, body } = await call(server, '/apis', {
    body: {
      name: slug,
      slug,
      upstream_base_url: upstream.url,
      pay_to_mode: 'user_wallet',
      pay_to_address: buyer.address,
    },
  })
  expect(status).toBe(201)
  return { id: body.id as string, slug }
}

async function addEndpoint(server: RunningServer, apiId: string, path_pattern: string, amount = '10000') {
  const { status, body } = await call(server, `/apis/${apiId}/endpoints`, {
    body: {
      method: 'GET',
      path_pattern,
      accepts: [sandboxAccept(services, amount)],
      request_schema: { type: 'object' },
      response_schema: { type: 'object' },
    },
  })
  expect(status).toBe(201)
  return body.id as string
}

const gateway = (server: RunningServer, slug: string) => `http://${slug}.dev.localhost:${server.port}`
const status = async (url: string) => {
  const response = await localFetch(url)
  await response.arrayBuffer()
  return response.status
}

describe.skipIf(!runs)('servers sharing one PostgreSQL database', () => {
  test('what A creates, B serves at once (no 404): an API, then endpoints B was asked for before', async () => {
    const api = await createApi(a)
    // B is asked first, so its caches hold "no such API" and then "no such route" when A writes.
    expect(await status(`${gateway(b, api.slug)}/weather/Lima`)).toBe(404)
    await addEndpoint(a, api.id, '/weather/{city}')
    expect(await status(`${gateway(b, api.slug)}/weather/Lima`)).toBe(402)
    for (let i = 0; i < 10; i++) {
      expect(await status(`${gateway(b, api.slug)}/p${i}`)).toBe(404)
      await addEndpoint(a, api.id, `/p${i}`)
      expect(await status(`${gateway(b, api.slug)}/p${i}`)).toBe(402)
    }
    // A write whose notification never comes (triggers off, the version moved by hand): only B's read before its
    // 404 can find it, whatever the timing.
    expect(await status(`${gateway(b, api.slug)}/quiet`)).toBe(404)
    await a.database.db.transaction().execute(async (trx) => {
      await sql`set local session_replication_role = replica`.execute(trx)
      const { seq: _, ...row } = (await trx
        .selectFrom('endpoints')
        .selectAll()
        .where('api_id', '=', api.id)
        .where('path_pattern', '=', '/p0')
        .executeTakeFirstOrThrow()) as Record<string, unknown>
      await trx
        .insertInto('endpoints')
        .values({ ...row, id: `ep_quiet_${api.id}`, path_pattern: '/quiet' } as never)
        .execute()
      await sql`update cache_version set version = version + 1 where id = 1`.execute(trx)
    })
    expect(await status(`${gateway(b, api.slug)}/quiet`)).toBe(402)

    const fresh = await createApi(a)
    await addEndpoint(a, fresh.id, '/weather/{city}')
    const paid = await payingFetch(services, buyer)(`${gateway(b, fresh.slug)}/weather/Oslo`)
    expect(paid.status).toBe(200)
    expect(((await paid.json()) as { city: string }).city).toBe('Oslo')
  })

  test('what A deletes is gone from B within a moment; a price A changes is asked by B', async () => {
    const api = await createApi(a)
    const endpointId = await addEndpoint(a, api.id, '/weather/{city}')
    expect(await status(`${gateway(b, api.slug)}/weather/Lima`)).toBe(402)
    expect(
      (
        await call(a, `/apis/${api.id}/endpoints/${endpointId}`, {
          method: 'PUT',
          body: { accepts: [sandboxAccept(services, '20000')] },
        })
      ).status,
    ).toBe(200)
    await vi.waitFor(async () => expect(await priceAt(`${gateway(b, api.slug)}/weather/Lima`)).toBe('20000'), {
      timeout: 5_000,
    })
    expect((await call(a, `/apis/${api.id}`, { method: 'DELETE' })).status).toBe(200)
    await vi.waitFor(async () => expect(await status(`${gateway(b, api.slug)}/weather/Lima`)).toBe(404), {
      timeout: 5_000,
    })
  })

  test("B's listening connection killed: its caches are dropped and it stays correct, then listens again", async () => {
    const api = await createApi(a)
    const endpointId = await addEndpoint(a, api.id, '/weather/{city}')
    const url = `${gateway(b, api.slug)}/weather/Lima`
    expect(await priceAt(url)).toBe('10000')
    const pid = b.database.notifications!.backendPid
    await sql`select pg_terminate_backend(${pid})`.execute(a.database.db)
    await vi.waitFor(() => expect(b.database.notifications!.listening).toBe(false), { timeout: 5_000 })
    // While B does not listen, a change through A (its notification lost to B) is served by B's next request.
    await call(a, `/apis/${api.id}/endpoints/${endpointId}`, {
      method: 'PUT',
      body: { accepts: [sandboxAccept(services, '30000')] },
    })
    expect(await priceAt(url)).toBe('30000')
    await vi.waitFor(() => expect(b.database.notifications!.listening).toBe(true), { timeout: 10_000 })
    expect(b.database.notifications!.backendPid).not.toBe(pid)
    await call(a, `/apis/${api.id}/endpoints/${endpointId}`, {
      method: 'PUT',
      body: { accepts: [sandboxAccept(services, '40000')] },
    })
    await vi.waitFor(async () => expect(await priceAt(url)).toBe('40000'), { timeout: 5_000 })
  })

  test("a seller's stream on A carries the payments made through B and C once each, in order; it resumes on B", async () => {
    const api = await createApi(a)
    await addEndpoint(a, api.id, '/weather/{city}')
    await addEndpoint(a, api.id, '/files/*')
    const stream = await open(a)
    // The other servers publish the seller's events once A's announcement reached them.
    await vi.waitFor(() => expect([b, c].map((server) => server.events.wanted(userId))).toEqual([true, true]), {
      timeout: 5_000,
    })
    const cities = ['Lima', 'Oslo', 'Kyiv', 'Pune']
    for (const [index, city] of cities.entries()) {
      const through = index % 2 === 0 ? b : c
      const paid = await payingFetch(services, buyer)(`${gateway(through, api.slug)}/weather/${city}`)
      expect(paid.status).toBe(200)
      await paid.arrayBuffer()
    }
    // Each payment: the 402 of the probe, then verified and settled, in that order. Events are published after the
    // answer, so one payment's last event may come after the next payment's first (made through another server).
    const first = await stream.next(cities.length * 3)
    const seen = first.map((event) => `${event.type} ${event.path}`)
    const expected = cities.map((city) =>
      ['payment.required', 'payment.verified', 'payment.settled'].map((type) => `${type} /weather/${city}`),
    )
    expect([...seen].sort()).toEqual(expected.flat().sort())
    for (const [index, city] of cities.entries())
      expect(seen.filter((line) => line.endsWith(`/weather/${city}`))).toEqual(expected[index])
    expectIncreasing(first)
    // An event past PostgreSQL's 8,000-byte notification limit (a long path) is read from the ring, in its place.
    const long = `/files/${'x'.repeat(8_100)}`
    expect(await statusWithLargeHeaders(c, api.slug, long)).toBe(402)
    expect(await status(`${gateway(b, api.slug)}/weather/Rome`)).toBe(402)
    const pair = await stream.next(2)
    expect(pair.map((event) => event.path).sort()).toEqual(['/weather/Rome', long].sort())
    expectIncreasing([...first, ...pair])
    stream.close()

    // Reconnected to B with the id of the 6th event: the 7th on come again, then what happened meanwhile, then live.
    const resumeAfter = first[5]!
    expect(await status(`${gateway(c, api.slug)}/weather/Accra`)).toBe(402)
    const resumed = await open(b, resumeAfter.id)
    expect(await status(`${gateway(a, api.slug)}/weather/Cairo`)).toBe(402)
    const again = await resumed.next(first.length - 6 + 2 + 2)
    expect(again.slice(0, -2).map((event) => event.id)).toEqual([...first.slice(6), ...pair].map((event) => event.id))
    expect(
      again
        .slice(-2)
        .map((event) => event.path)
        .sort(),
    ).toEqual(['/weather/Accra', '/weather/Cairo'])
    expectIncreasing([...first.slice(0, 6), ...again])
  })
})

/** The status of GET `path` at the API's host on `server`, whose 402 names the long path in headers past undici's limit. */
function statusWithLargeHeaders(server: RunningServer, slug: string, path: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const host = new URL(gateway(server, slug)).host
    const request = get(
      { host: '127.0.0.1', port: server.port, path, headers: { host }, maxHeaderSize: 1 << 16 },
      (response) => {
        response.resume()
        response.on('end', () => resolve(response.statusCode))
      },
    )
    request.on('error', reject)
  })
}

/** Ids increase strictly: one order, nothing twice. */
function expectIncreasing(events: PaymentEvent[]) {
  const ids = events.map((event) => event.id)
  expect(ids).toEqual([...ids].sort())
  expect(new Set(ids).size).toBe(ids.length)
}

/** The amount a 402 at `url` asks. */
async function priceAt(url: string): Promise<string> {
  const response = await localFetch(url)
  expect(response.status).toBe(402)
  const body = JSON.parse(Buffer.from(response.headers.get('payment-required')!, 'base64').toString()) as {
    accepts: { amount: string }[]
  }
  return body.accepts[0]!.amount
}

/** The seller's stream on `server`'s Sandbox control plane. */
const open = (server: RunningServer, lastEventId?: string) =>
  openTestEventStream(
    {
      baseUrl: server.sandboxControlUrl,
      headers: { authorization: `Bearer ${jwt}`, 'x-svc-environment': 'development' },
      lastEventId,
    },
    streams,
  )
