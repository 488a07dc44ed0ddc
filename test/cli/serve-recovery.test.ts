/**
 * Issue 26 items 3 and 4: a production payment `svc serve` was killed in the middle of (settled at the facilitator,
 * not yet recorded: SVC_PAUSE_AT=settlement-record, then SIGKILL) is found on its real chain through `--rpc
 * <network>=<url>`, read in bounded eth_getLogs ranges (an RPC proxy that refuses wider ones, as public providers
 * do). On PostgreSQL a second process, alive all along, recovers it within 5 s (the reaper: the dead process's
 * liveness lock is free); on SQLite the next start does. Without `--rpc` the row is dropped as before, with a line
 * naming the flag. The "real network" is svc's Sandbox chain in this test process, its facilitator the external one.
 * A live process whose liveness connection alone is ended (pg_terminate_backend, as a network blip) mid-payment keeps
 * it: the survivors do not take it for gone while it opens the connection again, and its buyer gets the answer.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import pg from 'pg'
import { parseAbiItem, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { openDatabase } from '../../server/db/database.js'
import { createProductionChains } from '../../server/journal/production-chains.js'
import { startBoundedRpc, type BoundedRpc } from '../helpers/bounded-rpc.js'
import { startHeldFacilitator } from '../helpers/held-facilitator.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-recovery-'))
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(walletFile, `${randomBytes(32).toString('hex')}\n`)
const direct = fetchFrom('127.0.0.1')
const running: ServeProcess[] = []
/** The most blocks the proxied RPC serves per eth_getLogs (svc is told the same: --rpc-log-blocks). */
const maxBlocks = 4

let services: ChainServices
let rpc: BoundedRpc
let upstreamUrl: string
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url })),
)

beforeAll(async () => {
  services = await startChainServices()
  rpc = await startBoundedRpc(services.rpcUrl, maxBlocks)
  // A chain with some history, so the block journaled with a payment is not its first.
  await services.sandboxChain.testClient.mine({ blocks: 40 })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
}, 60_000)
afterAll(async () => {
  for (const svc of running) await svc.stop()
  await rpc?.stop()
  upstream.close()
  await services?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const network = () => services.sandboxChain.network
const usdc = () => services.sandboxChain.usdc.address

/** `svc serve`, production only, on `database` (a data dir's SQLite file when undefined); paused mid-settle if asked. */
async function serve(
  name: string,
  options: { database?: string; rpc?: boolean; pause?: boolean; facilitatorUrl?: string },
) {
  const env = options.pause ? { ...process.env, SVC_PAUSE_AT: 'settlement-record' } : process.env
  const svc = await startServeProcess(
    [
      ...['--sandbox-chain', 'none', '--data-dir', join(dir, name), '--platform-domain', 'pay.test'],
      ...['--jwt-secret-file', jwtFile, '--wallet-key-file', walletFile, '--auto-verify'],
      ...['--facilitator-url', options.facilitatorUrl ?? services.facilitatorUrl, '--allow-upstream', '127.0.0.3'],
      ...(options.database ? ['--database-url', options.database] : []),
      ...(options.rpc ? ['--rpc', `${network()}=${rpc.url}`, '--rpc-log-blocks', String(maxBlocks)] : []),
    ],
    env,
  )
  running.push(svc)
  return svc
}

const post = (url: string, body: unknown, token?: string) =>
  direct(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  })

/** A seller and a production API at `{slug}.pay.test` whose endpoint is paid in the "real network"'s USDC. */
async function productionApi(svc: ServeProcess, slug: string) {
  const signup = await post(`${svc.ready.control_url}/auth/signup`, {
    email: `${slug}@pay.test`,
    password: 'a-long-password',
  })
  const { token } = (await signup.json()) as { token: string }
  const created = await post(
    `${svc.ready.control_url}/apis`,
    {
      name: slug,
      slug,
      upstream_base_url: upstreamUrl,
      pay_to_mode: 'user_wallet',
      pay_to_address: privateKeyToAccount(generatePrivateKey()).address,
    },
    token,
  )
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
    `${svc.ready.control_url}/apis/${id}/endpoints`,
    { method: 'GET', path_pattern: '/forecast', accepts: [accept], request_schema: null, response_schema: null },
    token,
  )
  expect(endpoint.status).toBe(201)
  return { id, url: (port: number) => `http://${slug}.pay.test:${port}/forecast` }
}

/** A funded buyer's payment of `url`, left to hang (the process is killed under it). */
async function payAndHang(url: string) {
  const buyer = privateKeyToAccount(generatePrivateKey())
  await services.manager.fund(buyer.address, 'usdc', '1')
  const client = new x402Client().register(network() as `${string}:${string}`, new ExactEvmScheme(buyer))
  client.setSpendControls({ allowedAssets: [{ network: network(), asset: usdc(), maxAmountPerPayment: '1000000' }] })
  // It never gets an answer: svc is killed with it in flight.
  void wrapFetchWithPayment(direct, client)(url).catch(() => {})
  return buyer.address
}

/** The transactions that used `payer`'s EIP-3009 authorizations on the chain. */
async function usedOnChain(payer: Address) {
  const logs = await services.sandboxChain.client.getLogs({
    address: usdc(),
    event: parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'),
    args: { authorizer: payer },
    fromBlock: 0n,
  })
  return logs.map((log) => log.transactionHash)
}

/** Waits until `svc` paused after the facilitator settled, then kills it with SIGKILL. */
async function killMidSettle(svc: ServeProcess) {
  await vi.waitFor(() => expect(svc.stderr()).toContain('paused at settlement-record'), {
    timeout: 30_000,
    interval: 20,
  })
  svc.child.kill('SIGKILL')
  await svc.exited
}

/** Blocks mined after the payment is journaled, so recovery's search spans several bounded ranges. */
async function mineBlocks(count: number) {
  await services.sandboxChain.testClient.mine({ blocks: count })
}

const runsPostgres = postgresAvailable() || Boolean(process.env.CI)

describe.skipIf(!runsPostgres)('on PostgreSQL: a survivor recovers a killed process', () => {
  let postgres: TestPostgres
  afterAll(async () => postgres?.stop())

  test('B, alive all along, records the payment A settled and died with, within 5 s, once', async () => {
    postgres ??= await startPostgres()
    const database = await postgres.createDatabase()
    const [a, b] = await Promise.all([
      serve('a', { database, rpc: true, pause: true }),
      serve('b', { database, rpc: true }),
    ])
    const api = await productionApi(b, 'forecast')
    const payer = await payAndHang(api.url(a.ready.port))
    await vi.waitFor(() => expect(a.stderr()).toContain('paused at settlement-record'), { timeout: 30_000 })
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    try {
      const [row] = (await client.query('select owner, from_block from settlement_journal')).rows
      expect(row.owner).toMatch(/^proc_/)
      expect(Number(row.from_block)).toBeGreaterThan(0)
      await mineBlocks(3 * maxBlocks)
      await killMidSettle(a)
      // B's reaper takes A's free liveness lock and checks the row on the chain (no restart of anything).
      await vi.waitFor(async () => expect((await client.query('select id from settlement_journal')).rows).toEqual([]), {
        timeout: 5_000,
        interval: 50,
      })
      const used = await usedOnChain(payer)
      expect(used).toHaveLength(1)
      const [transaction] = used
      const ledger = (await client.query('select transaction, delivered, environment from settlements')).rows
      expect(ledger).toEqual([{ transaction, delivered: 0, environment: 'production' }])
      expect(b.stderr()).toContain(`the process ${row.owner} is gone: 1 unfinished payment(s)`)
    } finally {
      await client.end()
    }
    // Its logs were read in steps the RPC takes.
    expect(rpc.ranges.length).toBeGreaterThan(1)
    expect(rpc.ranges.every(([from, to]) => to - from + 1n <= BigInt(maxBlocks))).toBe(true)
  }, 120_000)

  test('of three, C is killed with its settlement still at the facilitator; a survivor records it within 5 s of the kill, once', async () => {
    postgres ??= await startPostgres()
    const database = await postgres.createDatabase()
    const facilitator = await startHeldFacilitator(services.facilitatorUrl)
    const [a, , c] = await Promise.all([
      serve('a3', { database, rpc: true }),
      serve('b3', { database, rpc: true }),
      serve('c3', { database, rpc: true, facilitatorUrl: facilitator.url }),
    ])
    const api = await productionApi(a, 'in-flight')
    const client = new pg.Client({ connectionString: database })
    await client.connect()
    try {
      // C's settlement reaches the facilitator, which sends it on only later: C dies with it on its way.
      facilitator.hold()
      const payer = await payAndHang(api.url(c.ready.port))
      await vi.waitFor(
        async () => {
          expect(facilitator.waiting).toBe(1)
          expect((await client.query('select state from settlement_journal')).rows).toEqual([{ state: 'settling' }])
        },
        { timeout: 30_000, interval: 20 },
      )
      c.child.kill('SIGKILL')
      const killedAt = Date.now()
      await c.exited
      // The survivors' looks at C's row (its authorization's state read through --rpc: an eth_call each) find it
      // unused, twice; then the facilitator's transaction lands, as one does a moment after the process died.
      const looks = () => rpc.calls.filter((call) => call.method === 'eth_call' && call.at >= killedAt)
      await vi.waitFor(() => expect(looks().length).toBeGreaterThanOrEqual(2), { timeout: 30_000, interval: 5 })
      facilitator.release()
      await vi.waitFor(async () => expect(await usedOnChain(payer)).toHaveLength(1), { timeout: 30_000, interval: 20 })
      const landedMs = Date.now() - killedAt
      await vi.waitFor(async () => expect((await client.query('select id from settlement_journal')).rows).toEqual([]), {
        timeout: 30_000,
        interval: 20,
      })
      const recordedMs = Date.now() - killedAt
      console.info(
        `serve-recovery: C's settlement was first looked at ${looks()[0]!.at - killedAt} ms after the kill, on chain at ${landedMs} ms, in the ledger at ${recordedMs} ms`,
      )
      const [transaction] = await usedOnChain(payer)
      const ledger = (await client.query('select transaction, delivered from settlements')).rows
      expect(ledger).toEqual([{ transaction, delivered: 0 }])
      expect(recordedMs).toBeLessThanOrEqual(5_000)
    } finally {
      facilitator.release()
      await client.end()
      await facilitator.stop()
    }
  }, 120_000)
})

describe.skipIf(!runsPostgres)('on PostgreSQL: a live process whose liveness connection dropped', () => {
  let postgres: TestPostgres
  afterAll(async () => postgres?.stop())

  test('keeps its payment in flight: the survivors do not recover it meanwhile, and the buyer gets its answer, recorded delivered, once', async () => {
    postgres = await startPostgres()
    const database = await postgres.createDatabase()
    const [a, , c] = await Promise.all([
      serve('a4', { database, rpc: true }),
      serve('b4', { database, rpc: true }),
      serve('c4', { database, rpc: true, pause: true }),
    ])
    const api = await productionApi(a, 'blip')
    const buyer = privateKeyToAccount(generatePrivateKey())
    await services.manager.fund(buyer.address, 'usdc', '1')
    const client = new x402Client().register(network() as `${string}:${string}`, new ExactEvmScheme(buyer))
    client.setSpendControls({ allowedAssets: [{ network: network(), asset: usdc(), maxAmountPerPayment: '1000000' }] })
    const answer = wrapFetchWithPayment(
      direct,
      client,
    )(api.url(c.ready.port)).then(async (response) => ({
      status: response.status,
      body: await response.json(),
    }))
    answer.catch(() => {})
    const db = new pg.Client({ connectionString: database })
    await db.connect()
    try {
      // C's settlement is on the chain, its record not written yet (paused there).
      await vi.waitFor(() => expect(c.stderr()).toContain('paused at settlement-record'), { timeout: 30_000 })
      const [{ owner }] = (await db.query('select owner from settlement_journal')).rows
      const livenessPid = async (): Promise<number | undefined> =>
        (
          await db.query(
            `select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 1
               and classid::bigint = (hashtextextended($1, 0) >> 32) & 4294967295
               and objid::bigint = hashtextextended($1, 0) & 4294967295`,
            [owner],
          )
        ).rows[0]?.pid
      const journal = async () => (await db.query('select id from settlement_journal')).rows.length
      // Its liveness connection alone is ended (a network blip), several times: C opens it again each time.
      for (let blip = 0; blip < 5 && (await journal()) === 1; blip++) {
        const pid = await livenessPid()
        expect(pid).toBeDefined()
        await db.query('select pg_terminate_backend($1)', [pid])
        await vi.waitFor(async () => expect(await livenessPid()).toBeDefined(), { timeout: 10_000, interval: 20 })
        await new Promise((resolve) => setTimeout(resolve, 400))
      }
      // Still C's: no survivor took it for gone (and recorded it as charged without an answer, C then refusing the
      // buyer as a replay of its own payment).
      const taken = (await journal()) === 0
      c.child.kill('SIGUSR2')
      expect(await answer).toEqual({ status: 200, body: { ok: '/forecast' } })
      expect(taken).toBe(false)
      await vi.waitFor(async () => expect(await journal()).toBe(0), { timeout: 10_000, interval: 50 })
      const used = await usedOnChain(buyer.address)
      expect(used).toHaveLength(1)
      const ledger = (await db.query('select transaction, delivered from settlements')).rows
      expect(ledger).toEqual([{ transaction: used[0], delivered: 1 }])
      for (const svc of running) expect(svc.stderr()).not.toContain(`the process ${owner} is gone`)
    } finally {
      await db.end()
    }
  }, 120_000)
})

describe('on SQLite: the next start recovers it', () => {
  test('with --rpc the transfer is found and recorded; without, the row is dropped and the log names --rpc', async () => {
    const settlementsOf = async (apiId: string) => {
      const opened = await openDatabase(join(dir, 'solo', 'svc.sqlite'))
      try {
        return await opened.db
          .selectFrom('settlements')
          .select(['transaction', 'delivered'])
          .where('api_id', '=', apiId)
          .execute()
      } finally {
        await opened.close()
      }
    }
    const first = await serve('solo', { rpc: true, pause: true })
    const api = await productionApi(first, 'solo')
    const payer = await payAndHang(api.url(first.ready.port))
    await killMidSettle(first)
    await mineBlocks(3 * maxBlocks)
    rpc.ranges.length = 0
    const second = await serve('solo', { rpc: true, pause: true })
    const used = await usedOnChain(payer)
    expect(used).toHaveLength(1)
    const [transaction] = used
    expect(second.stderr()).toContain('1 payment(s) were charged without the buyer getting the answer')
    expect(rpc.ranges.length).toBeGreaterThan(1)
    expect(rpc.ranges.every(([from, to]) => to - from + 1n <= BigInt(maxBlocks))).toBe(true)

    // Again, and this time the next start has no RPC for the network: the old answer, and the flag named.
    const other = await payAndHang(api.url(second.ready.port))
    await killMidSettle(second)
    const third = await serve('solo', {})
    const [lost] = await usedOnChain(other)
    expect(lost).toBeDefined()
    expect(third.stderr()).toMatch(
      new RegExp(`cannot be checked: no RPC is given for ${network()}: start svc with --rpc ${network()}=<url>`),
    )
    const code = await third.stop()
    expect(code, third.stderr()).toBe(0)
    expect(await settlementsOf(api.id)).toEqual([{ transaction, delivered: 0 }])
  }, 120_000)
})

test("an RPC of another chain than its network's is refused: svc would read the wrong chain's history", async () => {
  const chains = createProductionChains(new Map([['eip155:8453', rpc.url]]))
  await expect(chains.clientOf('eip155:8453')).rejects.toThrow(
    `the RPC given for eip155:8453 (--rpc) serves chain ${services.sandboxChain.chainId}, not 8453`,
  )
  // No block is journaled from it either; a network without an RPC has none.
  expect(await chains.startBlock('eip155:8453')).toBeNull()
  expect(await chains.clientOf('eip155:1')).toBeUndefined()
})
