/**
 * Issue 35, item 2: `--allow-upstream 127.0.0.1/32` (the sellers' upstreams run on the same host) opens a range for
 * sellers' services, not for svc's own listeners. Real `svc serve` processes on one PostgreSQL database, production
 * only, in front of a chain and facilitator this test runs: another process's listener (as its row in the database
 * names it), the database, the RPC and the facilitator are refused at creation (400, the spec's message) and at
 * connect time (an API made while nothing listened on its port, then a svc process started there: 502, nothing
 * charged); a genuine upstream in the allowed range is paid through as before. A process killed with SIGKILL leaves
 * its row: the survivors' reapers remove it once its liveness lock is free (its port accepted again within seconds); a
 * live process whose row was removed names its listeners again.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import pg from 'pg'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-own-upstreams-'))
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(walletFile, `${randomBytes(32).toString('hex')}\n`)
const direct = fetchFrom('127.0.0.1')
const running: ServeProcess[] = []
const runs = postgresAvailable() || Boolean(process.env.CI)

let postgres: TestPostgres
let databaseUrl: string
let services: ChainServices
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url })),
)
let upstreamUrl: string

beforeAll(async () => {
  if (!runs) return
  ;[postgres, services] = await Promise.all([startPostgres(), startChainServices()])
  databaseUrl = await postgres.createDatabase()
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`
}, 120_000)
afterAll(async () => {
  for (const svc of running) await svc.stop()
  upstream.close()
  await services?.stop()
  await postgres?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const network = () => services.sandboxChain.network
const usdc = () => services.sandboxChain.usdc.address

/** `svc serve`, production only, on the shared database, sellers' upstreams allowed on 127.0.0.1. */
async function serve(name: string, extra: string[] = []) {
  const svc = await startServeProcess([
    ...['--sandbox-chain', 'none', '--data-dir', join(dir, name), '--platform-domain', 'pay.test'],
    ...['--jwt-secret-file', jwtFile, '--wallet-key-file', walletFile, '--auto-verify'],
    ...['--database-url', databaseUrl, '--allow-upstream', '127.0.0.1/32'],
    ...['--facilitator-url', services.facilitatorUrl, '--rpc', `${network()}=${services.rpcUrl}`],
    ...extra,
  ])
  running.push(svc)
  return svc
}

const post = (url: string, body: unknown, token?: string) =>
  direct(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })

/** A free port of 127.0.0.1 (listened on, then closed). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** A funded buyer's payment of `url`: the answer, and whether a settlement came back. */
async function pay(url: string) {
  const buyer = privateKeyToAccount(generatePrivateKey())
  await services.manager.fund(buyer.address, 'usdc', '1')
  const client = new x402Client().register(network() as `${string}:${string}`, new ExactEvmScheme(buyer))
  client.setSpendControls({ allowedAssets: [{ network: network(), asset: usdc(), maxAmountPerPayment: '1000000' }] })
  const response = await wrapFetchWithPayment(direct, client)(url)
  return { status: response.status, body: await response.json(), settled: response.headers.has('payment-response') }
}

describe.skipIf(!runs)('svc serve --allow-upstream 127.0.0.1/32: svc itself is never an upstream', () => {
  let a: ServeProcess
  let b: ServeProcess
  let token: string
  const createApi = (slug: string, upstreamBaseUrl: string) =>
    post(
      `${a.ready.control_url}/apis`,
      {
        name: slug,
        slug,
        upstream_base_url: upstreamBaseUrl,
        pay_to_mode: 'user_wallet',
        pay_to_address: privateKeyToAccount(generatePrivateKey()).address,
      },
      token,
    )
  /** An API at `{slug}.pay.test` in front of `upstreamBaseUrl` with one paid route, /forecast (no schema probe). */
  async function paidApi(slug: string, upstreamBaseUrl: string) {
    const created = await createApi(slug, upstreamBaseUrl)
    expect(created.status).toBe(201)
    const { id } = (await created.json()) as { id: string }
    const accept = {
      scheme: 'exact',
      network: network(),
      asset: usdc(),
      amount: '10000',
      extra: { name: 'USDC', version: '2' },
    }
    const endpoint = await post(
      `${a.ready.control_url}/apis/${id}/endpoints`,
      { method: 'GET', path_pattern: '/forecast', accepts: [accept], request_schema: null, response_schema: null },
      token,
    )
    expect(endpoint.status).toBe(201)
    return (svc: ServeProcess) => `http://${slug}.pay.test:${svc.ready.port}/forecast`
  }

  beforeAll(async () => {
    ;[a, b] = await Promise.all([serve('a'), serve('b')])
    const signup = await post(`${a.ready.control_url}/auth/signup`, {
      email: 'seller@pay.test',
      password: 'a-long-password',
    })
    token = ((await signup.json()) as { token: string }).token
  }, 120_000)

  test('a genuine upstream inside the allowed range is accepted and paid through, by either process', async () => {
    const url = await paidApi('genuine', upstreamUrl)
    for (const svc of [a, b])
      expect(await pay(url(svc))).toEqual({ status: 200, body: { ok: '/forecast' }, settled: true })
  }, 60_000)

  test('at creation: a sibling process, the database, the RPC and the facilitator are refused (400)', async () => {
    const database = new URL(databaseUrl)
    const refused = [
      { target: `http://127.0.0.1:${b.ready.port}`, name: "svc's control plane and gateway" },
      { target: `http://sibling.localhost:${b.ready.port}/v1`, name: "svc's control plane and gateway" },
      // Any loopback address on its port (a process bound to every address answers 127.0.0.2 as well).
      { target: `http://127.0.0.2:${b.ready.port}`, name: "svc's control plane and gateway" },
      { target: `http://${database.hostname}:${database.port}`, name: "svc's database" },
      { target: new URL(services.rpcUrl).origin, name: `svc's RPC of ${network()}` },
      { target: new URL(services.facilitatorUrl).origin, name: "svc's facilitator" },
    ]
    for (const [index, { target, name }] of refused.entries()) {
      const created = await createApi(`refused-${index}`, target)
      expect([target, created.status, await created.json()]).toEqual([
        target,
        400,
        { error: `upstream_base_url: targets ${name}; an upstream must be a service of your own` },
      ])
    }
  })

  test('at connect time: a svc process started on the port of an existing API is refused (502), nothing charged', async () => {
    const port = await freePort()
    const url = await paidApi('later', `http://localhost:${port}`)
    const c = await serve('c', ['--port', String(port)])
    expect(c.ready.port).toBe(port)
    for (const svc of [a, b])
      expect(await pay(url(svc))).toEqual({
        status: 502,
        body: { error: 'the upstream is not allowed; the payment was not settled' },
        settled: false,
      })
    // Once it is gone, the port is nobody's: the API reaches what listens there again (here: nothing).
    expect(await c.stop()).toBe(0)
    expect((await pay(url(a))).body).toMatchObject({
      error: expect.stringMatching(/^the upstream could not be reached/),
    })
  }, 120_000)

  test('a live process whose row was removed (taken for gone meanwhile) names its listeners again: still refused', async () => {
    const database = new pg.Client({ connectionString: databaseUrl })
    await database.connect()
    try {
      const ownerOf = async (port: number) =>
        (await database.query('select owner, listeners from cluster_processes')).rows.find((row) =>
          (JSON.parse(row.listeners) as { port: number }[]).some((listener) => listener.port === port),
        )?.owner as string | undefined
      const owner = await ownerOf(b.ready.port)
      expect(owner).toBeDefined()
      await database.query('delete from cluster_processes where owner = $1', [owner])
      await vi.waitFor(async () => expect(await ownerOf(b.ready.port)).toBe(owner), { timeout: 5_000, interval: 50 })
      expect((await createApi('republished', `http://127.0.0.1:${b.ready.port}`)).status).toBe(400)
    } finally {
      await database.end()
    }
  })

  test('a process killed with SIGKILL: the survivors remove its row within a few seconds, and its port is no longer refused', async () => {
    const d = await serve('d')
    const dead = `http://127.0.0.1:${d.ready.port}`
    expect((await createApi('killed-before', dead)).status).toBe(400)
    d.child.kill('SIGKILL')
    const killedAt = Date.now()
    await d.exited
    // No process stopped it: a survivor's reaper sees its liveness lock free and removes its row (the others are told).
    await vi.waitFor(async () => expect((await createApi(`killed-${Date.now()}`, dead)).status).toBe(201), {
      timeout: 10_000,
      interval: 100,
    })
    const goneMs = Date.now() - killedAt
    console.info(`serve-own-upstreams: the killed process's port was accepted again ${goneMs} ms after the kill`)
    expect(goneMs).toBeLessThan(5_000)
  }, 60_000)
})
