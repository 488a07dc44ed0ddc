/**
 * A team's shared Sandbox (issue 27, items 2 and 3): one `svc serve` process (SQLite, its Sandbox chain, an admin
 * token), three tenants in parallel, each with `connectSandbox()`: its own seller, API key, funded buyer, API, paid
 * requests, event stream and faults. No tenant reaches another's API, faults or settlements (404), nor sees its
 * events; a revert with a tenant's credential is a 403 and changes nothing; with the admin token it works, and every
 * tenant's stream says the admin did it.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SvcApiError } from '../../sdk/client.js'
import { connectSandbox, type SharedSandbox } from '../../sdk/connect-sandbox.js'
import { localFetch } from '../../sdk/local-fetch.js'
import type { StreamEvent } from '../../sdk/types.js'
import { startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-team-'))
const adminToken = randomBytes(32).toString('hex')
writeFileSync(join(dir, 'admin.token'), adminToken)
/** Every tenant's upstream, on 127.0.0.3 (svc serve --allow-upstream): it answers the path it was asked. */
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url })),
)
let svc: ServeProcess
let upstreamUrl: string

type Tenant = {
  sandbox: SharedSandbox
  api: { id: string; slug: string }
  events: AsyncIterableIterator<StreamEvent>
  url: string
}
let tenants: Tenant[]

/** Reads `events` until `match` is seen; what came before it is answered too. */
async function readUntil(events: AsyncIterableIterator<StreamEvent>, match: (event: StreamEvent) => boolean) {
  const seen: StreamEvent[] = []
  for (;;) {
    const { value, done } = await events.next()
    if (done) throw new Error(`the stream ended after ${seen.map((event) => event.type).join(', ')}`)
    seen.push(value)
    if (match(value)) return seen
  }
}

async function tenant(index: number): Promise<Tenant> {
  const sandbox = await connectSandbox(svc.ready.control_url)
  const { client } = sandbox.seller
  const slug = `team-${index}-${randomBytes(3).toString('hex')}`
  const api = await client.apis.create({
    name: `Team ${index}`,
    slug,
    upstream_base_url: upstreamUrl,
    pay_to_mode: 'user_wallet',
    pay_to_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  })
  await client.endpoints.create(api.id, {
    method: 'GET',
    path_pattern: '/quote',
    accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
  })
  const events = await sandbox.events()
  return { sandbox, api: { id: api.id, slug }, events, url: `${sandbox.gatewayUrl(slug)}/quote` }
}

/** A tenant's CI-style run: a paid request, a fault on its own API that strikes once, then paid again. */
async function suite({ sandbox, api, events, url }: Tenant) {
  expect((await sandbox.buyer.fetch(url)).status).toBe(200)
  const paid = await readUntil(events, (event) => event.type === 'payment.settled')
  await sandbox.faults.add({ kind: 'upstream', status: 503, api: api.slug, times: 1 })
  const failed = await sandbox.buyer.fetch(url)
  expect(failed.status).toBe(502)
  const refused = await readUntil(events, (event) => event.type === 'upstream.failed')
  expect(refused.at(-1)).toMatchObject({ api_id: api.id, charged: false })
  expect((await sandbox.buyer.fetch(url)).status).toBe(200)
  const again = await readUntil(events, (event) => event.type === 'payment.settled')
  // Only its own API's events came.
  for (const event of [...paid, ...refused, ...again]) expect(event).toMatchObject({ api_id: api.id })
  expect((await sandbox.seller.client.settlements.list()).settlements).toHaveLength(2)
}

beforeAll(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
  svc = await startServeProcess([
    ...['--data-dir', join(dir, 'data'), '--allow-upstream', '127.0.0.3/32'],
    ...['--admin-token-file', join(dir, 'admin.token'), '--auto-verify'],
  ])
  tenants = await Promise.all([0, 1, 2].map(tenant))
}, 120_000)

afterAll(async () => {
  await Promise.all((tenants ?? []).map((each) => each.sandbox.stop()))
  await svc?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('a shared Sandbox: three tenants on one svc serve with connectSandbox()', () => {
  test('each pays, hears its own events and faults its own API, in parallel', async () => {
    await Promise.all(tenants.map(suite))
  })

  test('a buyer the chain refuses for its balance (as on a new chain after a takeover) is funded again once, and its request paid', async () => {
    // 0.015 USDC: the second payment of 0.01 is short.
    const sandbox = await connectSandbox(svc.ready.control_url, {}, { buyerUsdc: '0.015' })
    try {
      const { client } = sandbox.seller
      const slug = `poor-${randomBytes(3).toString('hex')}`
      const api = await client.apis.create({
        name: 'Poor',
        slug,
        upstream_base_url: upstreamUrl,
        pay_to_mode: 'user_wallet',
        pay_to_address: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
      })
      await client.endpoints.create(api.id, {
        method: 'GET',
        path_pattern: '/quote',
        accepts: [{ scheme: 'exact', network: sandbox.network, asset: sandbox.usdc.address, amount: '10000' }],
      })
      const url = `${sandbox.gatewayUrl(slug)}/quote`
      expect((await sandbox.buyer.fetch(url)).status).toBe(200)
      expect((await sandbox.buyer.fetch(url)).status).toBe(200)
      expect((await client.settlements.list({ api_id: api.id })).settlements).toHaveLength(2)
    } finally {
      await sandbox.stop()
    }
  })

  test("no tenant reaches another's API, faults or settlements: 404; its fault list and clear are its own", async () => {
    const [a, b] = tenants as [Tenant, Tenant]
    const status = (call: Promise<unknown>) =>
      call.then(
        () => 200,
        (error: SvcApiError) => error.status,
      )
    await b.sandbox.faults.add({ kind: 'upstream', status: 500, api: b.api.id })
    const own = await a.sandbox.faults.add({ kind: 'upstream', status: 500, api: a.api.slug })
    expect(await status(a.sandbox.seller.client.apis.get(b.api.id))).toBe(404)
    expect(await status(a.sandbox.seller.client.settlements.list({ api_id: b.api.id }))).toBe(404)
    expect(await status(a.sandbox.faults.add({ kind: 'upstream', status: 500, api: b.api.slug }))).toBe(404)
    // A seller's fault names its API: one on every API is the admin's.
    expect(await status(a.sandbox.seller.client.faults.add({ kind: 'upstream', status: 500 }))).toBe(400)
    const bFaults = await b.sandbox.faults.list()
    expect(bFaults.map((fault) => fault.api)).toEqual([b.api.slug])
    expect((await a.sandbox.faults.list()).map((fault) => fault.id)).toEqual([own.id])
    expect(await status(a.sandbox.faults.clear(bFaults[0]!.id))).toBe(404)
    expect(await a.sandbox.faults.clear()).toBe(1)
    expect(await b.sandbox.faults.list()).toHaveLength(1)
    expect(await b.sandbox.faults.clear()).toBe(1)
  })

  test("a revert with a tenant's credential is a 403 and changes nothing; with the admin token it works and every tenant hears who did it", async () => {
    const admin = await connectSandbox(svc.ready.sandbox_control_url, { adminToken })
    const [a] = tenants as [Tenant]
    try {
      const snapshot = await admin.snapshot()
      expect((await a.sandbox.buyer.fetch(a.url)).status).toBe(200)
      await readUntil(a.events, (event) => event.type === 'payment.settled')
      const settled = (await a.sandbox.seller.client.settlements.list()).settlements.length
      // The handle refuses before asking; svc refuses the tenant's key itself.
      await expect(a.sandbox.revert(snapshot)).rejects.toThrow(/needs the admin credential/)
      const refused = await localFetch(`${svc.ready.sandbox_control_url}/dev/snapshots/${snapshot}/revert`, {
        method: 'POST',
        headers: { 'x-api-key': a.sandbox.seller.apiKey },
      })
      expect(refused.status).toBe(403)
      expect(((await refused.json()) as { error: string }).error).toMatch(/needs the admin credential/)
      expect((await a.sandbox.seller.client.settlements.list()).settlements).toHaveLength(settled)

      await admin.revert(snapshot)
      expect((await a.sandbox.seller.client.settlements.list()).settlements).toHaveLength(settled - 1)
      for (const { events } of tenants) {
        const seen = await readUntil(events, (event) => event.type === 'sandbox.reverted')
        expect(seen.at(-1)).toMatchObject({ actor: 'admin', snapshot_id: snapshot })
      }
      // Time travel too; the tenants' buyers sign by svc's clock, so they still pay.
      await admin.advanceTime(7200)
      await Promise.all(
        tenants.map(async ({ sandbox, events, url }) => {
          const seen = await readUntil(events, (event) => event.type === 'sandbox.time_advanced')
          expect(seen.at(-1)).toMatchObject({ actor: 'admin', seconds: 7200 })
          expect((await sandbox.buyer.fetch(url)).status).toBe(200)
        }),
      )
    } finally {
      await admin.stop()
    }
  })
})
