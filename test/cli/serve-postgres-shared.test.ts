/**
 * Two `svc serve` processes (real child processes, each with its Sandbox chain) on one PostgreSQL database share the
 * Sandbox's faults, svc's clock and the auth throttles (issue 26 item 3): a fault of `times: 3` added through A strikes
 * exactly 3 payments spread over A and B; a time advance through A expires a ttl endpoint on B too; 11 failed logins
 * spread over both are throttled as on one process.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { signUpServeSeller, type ServeSeller } from '../helpers/serve-seller.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-pg-shared-'))
const adminToken = randomBytes(32).toString('hex')
const files = { jwt: join(dir, 'jwt.key'), wallet: join(dir, 'wallet.key'), admin: join(dir, 'admin.token') }
writeFileSync(files.jwt, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(files.wallet, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(files.admin, `${adminToken}\n`)
const fetchLocal = fetchFrom('127.0.0.1')
const admin = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }
const buyer = privateKeyToAccount(generatePrivateKey())
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url })),
)

// Where PostgreSQL is missing outside CI the file is skipped, as test/helpers/postgres.ts's testDialects does.
const runs = postgresAvailable() || Boolean(process.env.CI)
let postgres: TestPostgres
let a: ServeProcess
let b: ServeProcess
let seller: ServeSeller

const sandboxControl = (svc: ServeProcess) => svc.ready.sandbox_control_url as string
const gateway = (svc: ServeProcess, path: string) =>
  `http://weather.${svc.ready.sandbox_platform_domain}:${svc.ready.port}${path}`

async function addEndpoint(path: string, extra: object = {}) {
  const accept = { scheme: 'exact', network: a.ready.network, asset: a.ready.usdc, amount: '10000' }
  expect((await seller.addEndpoint(a, path, accept, extra)).status).toBe(201)
}

beforeAll(async () => {
  if (!runs) return
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  postgres = await startPostgres()
  const databaseUrl = await postgres.createDatabase()
  const serve = (name: string) =>
    startServeProcess([
      ...['--data-dir', join(dir, name), '--database-url', databaseUrl, '--platform-domain', 'pay.test'],
      ...['--jwt-secret-file', files.jwt, '--wallet-key-file', files.wallet, '--admin-token-file', files.admin],
      ...['--allow-upstream', '127.0.0.3/32', '--auto-verify'],
    ])
  ;[a, b] = await Promise.all([serve('a'), serve('b')])
  seller = await signUpServeSeller(fetchLocal, a, upstream)
  await addEndpoint('/forecast')
  // Each process settles on its own Sandbox chain: the buyer has USDC on both.
  for (const svc of [a, b])
    await fetch(`${svc.ready.chain_manager_url}/faucet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address: buyer.address }),
    })
}, 120_000)
afterAll(async () => {
  for (const svc of [a, b]) await svc?.stop()
  await postgres?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

const pay = (url: string) => {
  const client = new x402Client().register(a.ready.network, new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: a.ready.network, asset: a.ready.usdc, maxAmountPerPayment: '1000000' }],
  })
  return wrapFetchWithPayment(fetchLocal, client)(url)
}
const faultsOf = async (svc: ServeProcess) =>
  ((await (await fetchLocal(`${sandboxControl(svc)}/dev/faults`, { headers: admin })).json()) as { faults: any[] })
    .faults

describe.skipIf(!runs)('svc serve ×2 on PostgreSQL: shared Sandbox state', () => {
  test('a fault of times 3 added through A strikes exactly 3 payments, spread over A and B', async () => {
    const added = await fetchLocal(`${sandboxControl(a)}/dev/faults`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ kind: 'verify', reason: 'invalid_exact_evm_signature', times: 3 }),
    })
    expect(added.status).toBe(201)
    const { id } = (await added.json()) as { id: string }
    // B lists the fault A added: one book.
    expect((await faultsOf(b)).map((fault) => fault.id)).toEqual([id])
    const statuses: string[] = []
    for (const svc of [a, b, a, b, a, b]) {
      const answer = await pay(gateway(svc, '/forecast'))
      statuses.push(`${svc === a ? 'A' : 'B'} ${answer.status}`)
    }
    expect(statuses).toEqual(['A 402', 'B 402', 'A 402', 'B 200', 'A 200', 'B 200'])
    expect(await faultsOf(a)).toEqual([])
    expect(await faultsOf(b)).toEqual([])
  })

  test("svc time advance through A: B's clock follows, and a ttl endpoint expires on both", async () => {
    await addEndpoint('/flash', { ttl: 3600 })
    for (const svc of [a, b]) expect((await fetchLocal(gateway(svc, '/flash'))).status).toBe(402)
    const advanced = await fetchLocal(`${sandboxControl(a)}/dev/time/advance`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ seconds: 7200 }),
    })
    expect(advanced.status).toBe(200)
    expect(((await advanced.json()) as { offset_seconds: number }).offset_seconds).toBe(7200)
    expect((await fetchLocal(gateway(a, '/flash'))).status).toBe(404)
    // B hears it from PostgreSQL (NOTIFY svc_clock), at once rather than at its next start.
    const timeOfB = async () =>
      (await (await fetchLocal(`${sandboxControl(b)}/dev/time`, { headers: admin })).json()) as {
        offset_seconds: number
        chain_time: number
      }
    await vi.waitFor(async () => expect((await timeOfB()).offset_seconds).toBe(7200), { timeout: 5_000 })
    expect((await fetchLocal(gateway(b, '/flash'))).status).toBe(404)
    // The endpoint without a ttl lives on; B's own chain was moved with its clock, as A's was.
    expect((await fetchLocal(gateway(b, '/forecast'))).status).toBe(402)
    await vi.waitFor(async () =>
      expect((await timeOfB()).chain_time).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000) + 7200 - 60),
    )
  })

  test('11 failed logins spread over A and B: the 11th is throttled with Retry-After, as on one process', async () => {
    const login = (svc: ServeProcess) =>
      fetchLocal(`${svc.ready.control_url}/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'seller@pay.test', password: 'a-wrong-password' }),
      })
    for (let i = 0; i < 10; i++) expect((await login(i % 2 === 0 ? a : b)).status).toBe(401)
    for (const svc of [a, b]) {
      const refused = await login(svc)
      expect(refused.status).toBe(429)
      expect(await refused.json()).toEqual({ error: 'too many failed logins for this email, try again later' })
      const retryAfter = Number(refused.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(15 * 60 - 60)
      expect(retryAfter).toBeLessThanOrEqual(15 * 60)
    }
  })
})
