/**
 * Issue 26's cluster: one PostgreSQL database, three `svc serve` processes started as docs/postgres.md says (its
 * blocks run with bash: the keys, the database and its role, each process, its readiness, the backup and the
 * restore), production only, in front of an external chain and facilitator (a `svc up --twin base-sepolia` child: its
 * twin is "Base Sepolia", its facilitator "x402.org's"). A seller's production API is made through one process; 16
 * official `@x402/fetch` buyers pay it through a round-robin load balancer over the three (the test's stand-in for the
 * docs' Caddy site); then one process is killed with SIGKILL under load, not restarted, and the buyers pay on through
 * the other two.
 */
import type Pg from 'pg'
import { type Address, createPublicClient, type Hex, http, parseAbi } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { docBlock } from '../docs/blocks.js'
import { openEventStream } from '../../sdk/event-stream.js'
import type { PaymentEvent } from '../../sdk/types.js'
import { getBlockNumber, reconcile, startLogCollector } from '../bench/reconcile.js'
import {
  type Cluster,
  type ExternalChain,
  serverSection,
  startCluster,
  startExternalChain,
} from '../helpers/cluster.js'
import {
  controlOf,
  createProductionApi,
  fetchDirect,
  loadBalancer,
  newBuyers,
  readLedger,
  startUpstream,
  type LedgerRow,
  type ProductionApi,
} from '../helpers/cluster-load.js'
import { connectAdmin, heldAdvisoryKeys, journalRows, startLoad, watchRecovery } from '../helpers/cluster-watch.js'
import { postgresAvailable } from '../helpers/postgres.js'

// Where PostgreSQL is missing outside CI the file is skipped, as test/cli/serve-postgres.test.ts is.
const runs = postgresAvailable() || Boolean(process.env.CI)

/** Paid answers before the kill, and after it through the two left. */
const beforeKill = 100
const afterKill = 100
/** The authorizations' window: a settlement the dead process never sent is known unused once it has passed. */
const maxTimeoutSeconds = 12
/**
 * A survivor notices a dead process within 250 ms (server/cluster/reaper.ts) and reads its rows on the chain: a bound
 * with room for a loaded machine.
 */
const reapEveryMs = 4_000
/** Rows it had to keep (an unused authorization in its window) it looks at again after 0.25 s, doubling up to 10 s. */
const keptRetryMs = 10_000

/** Whether the EIP-3009 authorization `nonce` of `payer` was used on the chain (USDC's authorizationState). */
async function authorizationUsed(on: ExternalChain, payer: string, nonce: string): Promise<boolean> {
  const client = createPublicClient({ transport: http(on.rpcUrl) })
  return client.readContract({
    address: on.usdc,
    abi: parseAbi(['function authorizationState(address authorizer, bytes32 nonce) view returns (bool)']),
    functionName: 'authorizationState',
    args: [payer as Address, nonce as Hex],
  })
}

let chain: ExternalChain
let cluster: Cluster
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined
let admin: Pg.Client | undefined
let api: ProductionApi
const readyAnswers: string[] = []
const events: PaymentEvent[] = []
const listening = new AbortController()
let run: {
  answered: Set<string>
  failures: number
  servedBy: Map<string, number>
  killedPort: number
  /** Date.now() at the kill. */
  killedAt: number
  listenerPort: number
  recovery: Awaited<ReturnType<typeof watchRecovery>>
  journalLeft: number
  chain: Awaited<ReturnType<ReturnType<typeof startLogCollector>['finish']>>
  ledger: LedgerRow[]
}

beforeAll(async () => {
  if (!runs) return
  const t0 = performance.now()
  ;[chain, upstream] = await Promise.all([startExternalChain(), startUpstream()])
  cluster = await startCluster({
    facilitatorUrl: chain.facilitatorUrl,
    network: chain.network,
    rpcUrl: chain.rpcUrl,
    extraArgs: ['--allow-upstream', '127.0.0.3', '--auto-verify'],
  })
  // All three at once: one migrates, the others wait on its advisory lock.
  const [first, , third] = await Promise.all([cluster.start(), cluster.start(), cluster.start()])
  for (const svc of cluster.processes) readyAnswers.push(runReady(svc.ready.port))
  admin = await connectAdmin(cluster.adminUrl)

  api = await createProductionApi(first!, {
    network: chain.network,
    usdc: chain.usdc,
    upstreamUrl: upstream.url,
    maxTimeoutSeconds,
  })
  const balancer = loadBalancer(cluster.processes)
  const buyers = newBuyers(16, chain.network, chain.usdc, balancer.fetch)
  await Promise.all(buyers.map((buyer) => chain.fund(buyer.account.address, 1)))

  // The listener: the live event stream of the first process, which the kill spares.
  const stream = await openEventStream({
    baseUrl: controlOf(first!),
    headers: { authorization: `Bearer ${api.token}` },
    signal: listening.signal,
    fetch: fetchDirect,
  })
  const listened = (async () => {
    try {
      for await (const event of stream)
        if (!event.type.startsWith('sandbox.')) events.push(event as (typeof events)[number])
    } catch {
      // Aborted at the end.
    }
  })()

  const logs = startLogCollector(chain.rpcUrl, chain.usdc, api.payTo, api.amount, await getBlockNumber(chain.rpcUrl))
  const tReady = performance.now()
  const load = startLoad(buyers, api.url)
  await load.until(beforeKill)
  const heldBefore = await heldAdvisoryKeys(admin)
  third!.child.kill('SIGKILL')
  const killedAt = Date.now()
  const recovery = watchRecovery(admin, heldBefore, {
    timeoutMs: (maxTimeoutSeconds + 20) * 1000,
    snapshotAtMs: 5_000,
    isUsed: (payer, nonce) => authorizationUsed(chain, payer, nonce),
  })
  await load.until(load.answered.size + afterKill)
  await load.stop()
  const tLoad = performance.now()
  // Every row resolved: the last authorizations the dead process held are known unused once their window passed.
  const deadline = Date.now() + (maxTimeoutSeconds + 20) * 1000
  let journalLeft = await journalRows(admin)
  while (journalLeft > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    journalLeft = await journalRows(admin)
  }
  const tJournal = performance.now()
  run = {
    answered: load.answered,
    failures: load.failures(),
    servedBy: balancer.servedBy,
    killedPort: third!.ready.port,
    killedAt,
    listenerPort: first!.ready.port,
    recovery: await recovery,
    journalLeft,
    chain: await logs.finish(),
    ledger: await readLedger(first!, api.token),
  }
  listening.abort()
  await listened
  const unanswered = run.ledger.filter((row) => !run.answered.has(row.transaction)).length
  console.info(
    `serve-cluster: ${run.chain.transfers.length} transfers on chain, ${run.ledger.length} in the ledger, ${run.answered.size} answered, ${unanswered} charged without an answer, ${run.failures} failed requests, journal rows left ${journalLeft}, dead process's rows (at most ${run.recovery.most}) recovered in ${run.recovery.ms ?? 'more than the watch'} ms (${run.recovery.snapshot.length} left 5 s after the kill, waiting for their window), ${events.length} events on the listener; ready in ${ms(tReady - t0)} s, load ${ms(tLoad - tReady)} s, journal ${ms(tJournal - tLoad)} s`,
  )
}, 180_000)

afterAll(async () => {
  listening.abort()
  await admin?.end()
  await cluster?.stop()
  await chain?.svc.stop()
  upstream?.server.close()
})

const ms = (value: number) => (value / 1000).toFixed(1)

function runReady(port: number): string {
  return cluster.run('cluster-ready.sh', (code) => code.replace(':4021', `:${port}`))
}

describe.skipIf(!runs)('three svc serve processes on one PostgreSQL database, one killed under load', () => {
  test('docs: each process started by cluster.sh answers cluster-ready.sh as the section quotes it', () => {
    expect(readyAnswers).toHaveLength(3)
    for (const answer of readyAnswers) {
      expect(JSON.parse(answer)).toEqual({ status: 'ready', database: 'ok', chain: 'none' })
      expect(serverSection).toContain(`\`${answer.trim()}\``)
    }
  })

  test('docs: the Caddy site of the cluster proxies to the ports cluster.sh names and checks /readyz', () => {
    const site = docBlock('Caddyfile (cluster)').code
    const cluster = docBlock('cluster.sh').code
    const serve = /--host (\S+) --port (\d+)/.exec(cluster)
    const [host, port] = [serve![1], Number(serve![2])]
    expect(site).toContain(`reverse_proxy ${host}:${port} ${host}:${port + 1} ${host}:${port + 2} {`)
    expect(site).toContain('health_uri /readyz')
    expect(site.split('\n')[0]).toBe(`*.${/--platform-domain (\S+)/.exec(cluster)![1]} {`)
  })

  test('the buyers were served by all three processes, the killed one included', () => {
    const ports = new Set(run.servedBy.values())
    expect(ports.size).toBe(3)
    expect(ports).toContain(run.killedPort)
    expect(run.answered.size).toBeGreaterThanOrEqual(beforeKill + afterKill)
  })

  test('every answer a buyer got names a transfer on chain, once (reconcile: nothing lost)', () => {
    const answered = [...run.answered] as Hex[]
    const { lost } = reconcile(run.chain, answered)
    expect(lost).toBe(0)
  })

  test('every transfer on chain is in the ledger exactly once, and the ledger holds nothing else', () => {
    const onChain = run.chain.transfers.filter((hash) => run.chain.authorized.has(hash))
    const recorded = run.ledger.map((row) => row.transaction)
    expect(new Set(onChain).size).toBe(onChain.length)
    expect(recorded.length).toBe(new Set(recorded).size)
    expect(new Set(recorded)).toEqual(new Set(onChain))
    expect(run.journalLeft).toBe(0)
  })

  test('every charge a buyer got no answer for is delivered: false; every answer of a survivor delivered: true', () => {
    for (const row of run.ledger) {
      if (!run.answered.has(row.transaction)) expect(row.delivered).toBe(false)
      // The killed process may have died between writing an answer and closing its row: recovery then says false.
      else if (run.servedBy.get(row.transaction) !== run.killedPort) expect(row.delivered).toBe(true)
    }
  })

  test("the dead process's journal rows are recovered by a survivor within 5 s of the kill, but for authorizations unused on chain whose window is open (then once it closes)", () => {
    // 5 s after the kill, a row of the dead process is left only where recovery must wait: its authorization was not
    // used on chain and could still be (a settlement in flight at the facilitator) until its validBefore.
    for (const row of run.recovery.snapshot) {
      expect(row.used).toBe(false)
      expect(Number(row.valid_before) * 1000).toBeGreaterThan(run.killedAt + 5_000 - reapEveryMs)
    }
    expect(run.recovery.ms).toBeDefined()
    const lastWindow = Math.max(
      0,
      ...run.recovery.snapshot.map((row) => Number(row.valid_before) * 1000 - run.killedAt),
    )
    expect(run.recovery.ms!).toBeLessThanOrEqual(Math.max(5_000, lastWindow + keptRetryMs + reapEveryMs))
  })

  test('the listener on one process saw every payment made through the others, exactly once', () => {
    const settled = events.filter((event) => event.type === 'payment.settled')
    const seen = new Map<string, number>()
    for (const event of settled) seen.set(event.transaction!, (seen.get(event.transaction!) ?? 0) + 1)
    const throughOthers = [...run.servedBy].filter(([, port]) => port !== run.listenerPort).map(([hash]) => hash)
    expect(throughOthers.length).toBeGreaterThan(0)
    const notOnce = throughOthers
      .filter((hash) => seen.get(hash) !== 1)
      .map((hash) => ({ hash, seen: seen.get(hash) ?? 0, killed: run.servedBy.get(hash) === run.killedPort }))
    expect(notOnce).toEqual([])
    expect(new Set(settled.map((event) => event.id)).size).toBe(settled.length)
  })

  test('docs: backup.sh dumps the database while the processes serve, restore.sh restores it with the same ledger', async () => {
    cluster.run('backup.sh')
    await admin!.query('create database svc_restored owner svc_app')
    cluster.run('restore.sh')
    const count = async (database: string) => {
      const client = await connectAdmin(`${cluster.postgres.url}/${database}`)
      try {
        const { rows } = await client.query<{ count: number }>('select count(*)::int as count from settlements')
        return rows[0]!.count
      } finally {
        await client.end()
      }
    }
    expect(await count('svc_restored')).toBe(await count('svc'))
    expect(await count('svc')).toBeGreaterThan(0)
  })
})
