/**
 * Issue 27's Done-when: a team's shared Sandbox as docs/postgres.md's "Team Sandbox" starts it (PostgreSQL, three
 * `svc serve --sandbox-chain shared`: one owns the chain, two are gateways) behind a load balancer, three tenants' CI
 * jobs (the docs' ci-job.ts, with connectSandbox()) at once, and the owner killed with SIGKILL in the middle. Every job
 * finishes after the takeover; each tenant's ledger matches each chain it was paid on (the dead owner's Anvil kept past
 * the kill to read it); no tenant reaches another's APIs, settlements, events, stats or faults, through any process.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type Address, getAddress } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createSvcClient } from '../../sdk/client.js'
import { connectSandbox, type SharedSandbox } from '../../sdk/connect-sandbox.js'
import { localFetch } from '../../sdk/local-fetch.js'
import type { StreamEvent } from '../../sdk/types.js'
import { postgresAvailable } from '../helpers/postgres.js'
import type { ServeProcess } from '../helpers/serve-process.js'
import { startTeam, type Team } from '../helpers/team.js'
import { type CiJob, startCiJob, writeCiJob } from '../helpers/team-jobs.js'
import {
  type ChainTransfers,
  type LedgerRow,
  matchLedger,
  readChainTransfers,
  keepChainAfterKill,
} from '../helpers/team-ledger.js'

// Where PostgreSQL is missing outside CI the file is skipped, as the cluster's is.
const runs = postgresAvailable() || Boolean(process.env.CI)
/** Each job's paid requests, and how many answered in all before the owner is killed. */
const payments = 12
const killAfter = 9

type Tenant = {
  email: string
  password: string
  payTo: Address
  handle: SharedSandbox
  events: StreamEvent[]
  job: CiJob
  ledger: LedgerRow[]
}

const dir = mkdtempSync(join(tmpdir(), 'svc-team-test-'))
const listening = new AbortController()
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url })),
)
let team: Team
let tenants: Tenant[] = []
let owner: ServeProcess
let deadChain: { stop(): void } | undefined
let run: {
  killedAt: number
  /** The first 200 of a chain route (GET /dev/time) through a survivor after the kill. */
  chainBackAt: number | undefined
  /** What the survivors answered on the chain route before it was back. */
  meanwhile: { status: number; retryAfter: string | null }[]
  /** The first settlement of a paid request on the new owner's chain (its ledger row's created_at). */
  firstPaidOnNewChain: number | undefined
  chains: ChainTransfers[]
}

const status = (call: Promise<unknown>) =>
  call.then(
    () => 200,
    (error: { status?: number }) => error.status ?? 0,
  )

/** A seller signed up through the balancer, with the password its CI job is given. */
async function newTenant(index: number): Promise<Omit<Tenant, 'job' | 'ledger'>> {
  const email = `tenant-${index}-${randomBytes(3).toString('hex')}@team.test`
  const password = randomBytes(12).toString('base64url')
  await createSvcClient({ baseUrl: team.sandboxUrl, fetch: localFetch }).auth.signup(email, password)
  const handle = await connectSandbox(team.sandboxUrl, { email, password })
  const events: StreamEvent[] = []
  const stream = await handle.events({ signal: listening.signal })
  void (async () => {
    for await (const event of stream) events.push(event)
  })().catch(() => {})
  return { email, password, payTo: privateKeyToAccount(generatePrivateKey()).address, handle, events }
}

/**
 * Polls GET /dev/time on `svc` (a chain route) until it answers 200: the moment it did, and the answers before it that
 * were not 200 (status and Retry-After).
 */
async function chainAnswers(svc: ServeProcess, apiKey: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  const before: { status: number; retryAfter: string | null }[] = []
  while (Date.now() < deadline) {
    const response = await localFetch(`http://sandbox.localhost:${svc.ready.port}/dev/time`, {
      headers: { 'x-api-key': apiKey },
    }).catch(() => undefined)
    await response?.arrayBuffer()
    if (response?.status === 200) return { at: Date.now(), before }
    before.push({ status: response?.status ?? 0, retryAfter: response?.headers.get('retry-after') ?? null })
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
  return { at: undefined, before }
}

async function readLedger(handle: SharedSandbox): Promise<LedgerRow[]> {
  const rows: LedgerRow[] = []
  let cursor: string | undefined
  do {
    const page = await handle.seller.client.settlements.list({ limit: 200, ...(cursor ? { cursor } : {}) })
    rows.push(...page.settlements)
    cursor = page.next_cursor ?? undefined
  } while (cursor)
  return rows
}

beforeAll(async () => {
  if (!runs) return
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  team = await startTeam()
  // All three at once: one takes the chain-owner lease, the others serve through it.
  await Promise.all([team.start(), team.start(), team.start()])
  owner = team.processes.find((svc) => svc.ready.chain_owner === true)!
  deadChain = keepChainAfterKill(owner.ready.data_dir)
  const partial = await Promise.all([0, 1, 2].map(newTenant))
  const file = writeCiJob(dir)
  const upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
  let answered = 0
  let killedAt = 0
  const killed = new Promise<void>((resolve) => {
    const onPaid = () => {
      if (++answered !== killAfter) return
      owner.child.kill('SIGKILL')
      killedAt = Date.now()
      resolve()
    }
    tenants = partial.map((tenant, index) => ({
      ...tenant,
      ledger: [],
      job: startCiJob(
        file,
        {
          SVC_BASE_URL: team.sandboxUrl,
          SVC_EMAIL: tenant.email,
          SVC_PASSWORD: tenant.password,
          UPSTREAM_URL: upstreamUrl,
          PAY_TO: tenant.payTo,
          PAYMENTS: String(payments),
          CI_JOB_ID: `${index}-${randomBytes(3).toString('hex')}`,
        },
        onPaid,
      ),
    }))
  })
  await Promise.race([killed, Promise.all(tenants.map((tenant) => tenant.job.done))])
  const survivors = team.processes.filter((svc) => svc !== owner)
  const backAt = await Promise.all(survivors.map((svc) => chainAnswers(svc, tenants[0]!.handle.seller.apiKey, 60_000)))
  const ends = await Promise.all(tenants.map((tenant) => tenant.job.done))
  for (const [index, end] of ends.entries())
    if (end.code !== 0) throw new Error(`CI job ${index} exited ${end.code}: ${end.stderr.trim().slice(0, 1200)}`)

  const payTos = tenants.map((tenant) => tenant.payTo)
  const usdc = getAddress(tenants[0]!.handle.usdc.address)
  const current = await createSvcClient({ baseUrl: team.sandboxUrl, fetch: localFetch }).request<{
    rpc_url: string
  }>('GET', '/config/local-dev')
  const chains = [
    await readChainTransfers(owner.ready.rpc_url, usdc, payTos),
    await readChainTransfers(current.rpc_url, usdc, payTos),
  ]
  for (const tenant of tenants) tenant.ledger = await readLedger(tenant.handle)
  const onNewChain = tenants
    .flatMap((tenant) => tenant.ledger)
    .filter((row) => row.chain_epoch === chains[1]!.epoch)
    .map((row) => Date.parse(row.created_at))
  run = {
    killedAt,
    chainBackAt: backAt.every(({ at }) => at !== undefined) ? Math.max(...backAt.map(({ at }) => at!)) : undefined,
    meanwhile: backAt.flatMap(({ before }) => before),
    firstPaidOnNewChain: onNewChain.length ? Math.min(...onNewChain) : undefined,
    chains,
  }
  console.info(
    `serve-team: takeover: chain routes back ${run.chainBackAt === undefined ? '-' : run.chainBackAt - killedAt} ms after the kill, first paid request settled on the new chain ${run.firstPaidOnNewChain === undefined ? '-' : run.firstPaidOnNewChain - killedAt} ms; ledgers ${tenants.map((tenant) => tenant.ledger.length).join('/')}, epochs ${chains.map((chain) => chain.epoch).join(' → ')}`,
  )
}, 240_000)

afterAll(async () => {
  listening.abort()
  deadChain?.stop()
  await Promise.all(tenants.map((tenant) => tenant.handle.stop()))
  for (const tenant of tenants) tenant.job.child.kill('SIGKILL')
  await team?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!runs)('a team Sandbox: three shared processes, three CI jobs, the chain owner killed mid-run', () => {
  test('docs: the three processes team.sh started are one chain owner and two that are not', () => {
    expect(team.processes.map((svc) => svc.ready.chain_owner).sort()).toEqual([false, false, true])
  })

  test('every CI job finished all its paid requests, some after the takeover; meanwhile the chain route was a 503 with Retry-After', () => {
    for (const tenant of tenants) {
      expect(tenant.job.paidAt).toHaveLength(payments)
      expect(tenant.job.summary?.settlements).toBeGreaterThanOrEqual(payments)
    }
    expect(run.chainBackAt).toBeDefined()
    // Meanwhile the survivors said to come back later: 503 with Retry-After, nothing else.
    expect(run.meanwhile.length).toBeGreaterThan(0)
    for (const answer of run.meanwhile) expect(answer).toMatchObject({ status: 503, retryAfter: expect.any(String) })
    expect(run.firstPaidOnNewChain).toBeGreaterThan(run.killedAt)
  })

  test("each tenant's ledger matches each chain it was paid on, exactly once, per epoch (the dead one but for a payment in flight at the kill)", () => {
    const [dead, current] = run.chains as [ChainTransfers, ChainTransfers]
    expect(dead.epoch).not.toBe(current.epoch)
    for (const tenant of tenants) {
      const matches = matchLedger(tenant.ledger, tenant.payTo, run.chains)
      expect(matches.map((match) => match.epoch).sort()).toEqual([dead.epoch, current.epoch].sort())
      // The new chain: exactly the ledger. The dead one: nothing in the ledger that it does not hold, and of its
      // transfers at most the one the job had in flight at the kill missing (a job pays one request at a time): mined
      // by the owner in its last moment, answered to no one, and the chain that knew it is gone, so no survivor can
      // find it (seen once in ~15 runs; printed when it happens).
      const ofDead = matches.find((match) => match.epoch === dead.epoch)!
      if (ofDead.missing.length > 0) console.info(`serve-team: lost with the dead chain: ${ofDead.missing.join(', ')}`)
      expect(ofDead.missing.length).toBeLessThanOrEqual(1)
      // Whole, so a failure shows the transactions on one side only.
      expect(matches).toEqual(
        matches.map((match) => ({
          ...match,
          missing: match === ofDead ? match.missing : [],
          extra: [],
          duplicates: [],
        })),
      )
      // The dead chain's settlements stay in the ledger, marked as settled on an earlier chain.
      for (const row of tenant.ledger) expect(row.old_chain).toBe(row.chain_epoch === dead.epoch)
    }
    const onDead = tenants.reduce(
      (sum, tenant) => sum + (dead.transfers.get(tenant.payTo.toLowerCase())?.length ?? 0),
      0,
    )
    const onCurrent = tenants.reduce(
      (sum, tenant) => sum + (current.transfers.get(tenant.payTo.toLowerCase())?.length ?? 0),
      0,
    )
    expect(onDead).toBeGreaterThanOrEqual(killAfter)
    expect(onCurrent).toBeGreaterThan(0)
  })

  test("each tenant's events are its own API's, each settlement of its ledger told once at most; its stats count its ledger", async () => {
    for (const tenant of tenants) {
      const apiId = tenant.job.summary!.api
      const own = new Set(tenant.ledger.map((row) => row.transaction))
      const settled = tenant.events.filter((event) => event.type === 'payment.settled')
      expect(settled.length).toBeGreaterThan(0)
      for (const event of tenant.events)
        if (!event.type.startsWith('sandbox.')) expect(event).toMatchObject({ api_id: apiId })
      for (const event of settled) expect(own.has((event as { transaction: string }).transaction)).toBe(true)
      const told = settled.map((event) => (event as { transaction: string }).transaction)
      expect(new Set(told).size).toBe(told.length)
      const stats = await tenant.handle.seller.client.stats.overview({ days: 2 })
      expect(stats.totals.settlements).toBe(tenant.ledger.length)
    }
  })

  test("no tenant reaches another's API, settlements, events, stats or faults, through any live process: 404", async () => {
    const survivors = team.processes.filter((svc) => svc !== owner)
    const [a, b] = tenants as [Tenant, Tenant]
    const bApi = b.job.summary!.api
    const bSlug = (await b.handle.seller.client.apis.get(bApi)).slug
    const bFault = await b.handle.faults.add({ kind: 'upstream', status: 500, api: bSlug })
    for (const svc of survivors) {
      const as = createSvcClient({
        baseUrl: `http://sandbox.localhost:${svc.ready.port}`,
        apiKey: a.handle.seller.apiKey,
        fetch: localFetch,
      })
      expect(await status(as.apis.get(bApi))).toBe(404)
      expect(await status(as.settlements.list({ api_id: bApi }))).toBe(404)
      expect(await status(as.stats.overview({ api_id: bApi }))).toBe(404)
      expect(await status(as.faults.add({ kind: 'upstream', status: 500, api: bSlug }))).toBe(404)
      expect(await status(as.faults.clear(bFault.id))).toBe(404)
      expect((await as.faults.list()).faults.map((fault) => fault.id)).not.toContain(bFault.id)
      const events = await localFetch(`http://sandbox.localhost:${svc.ready.port}/events?api_id=${bApi}`, {
        headers: { 'x-api-key': a.handle.seller.apiKey },
      })
      await events.body?.cancel()
      expect(events.status).toBe(404)
    }
    expect(await b.handle.faults.clear()).toBe(1)
  })
})
