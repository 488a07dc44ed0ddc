/**
 * Issue 35 item C: PostgreSQL restarted under three `svc serve` processes while buyers pay. The cluster of
 * test/cli/serve-cluster.test.ts (the README's "Running svc on a server", production payments on an external chain),
 * 4 official `@x402/fetch` buyers paying through a round-robin load balancer; PostgreSQL is restarted as an operator
 * does (`pg_ctl restart -m fast`: every session ended with 57P01), and later stopped for 10 s and started again. No
 * process exits; every answer is 200, a 402 asking for payment, or a 503 with Retry-After (never a 500); every
 * process answers /readyz 200 within 15 s of the database being back; and the ledger equals the chain: every transfer
 * on chain has exactly one settlement row, and nothing is charged twice.
 */
import type Pg from 'pg'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { getBlockNumber, reconcile, startLogCollector } from '../bench/reconcile.js'
import { type Cluster, type ExternalChain, isRunning, startCluster, startExternalChain } from '../helpers/cluster.js'
import {
  createProductionApi,
  fetchDirect,
  loadBalancer,
  newBuyers,
  readLedger,
  startUpstream,
  type LedgerRow,
  type ProductionApi,
} from '../helpers/cluster-load.js'
import { connectAdmin, journalRows } from '../helpers/cluster-watch.js'
import { postgresAvailable } from '../helpers/postgres.js'
import { decodePaymentResponseHeader } from '@x402/core/http'
import type { ServeProcess } from '../helpers/serve-process.js'

// Where PostgreSQL is missing outside CI the file is skipped, as test/cli/serve-postgres.test.ts is.
const runs = postgresAvailable() || Boolean(process.env.CI)

/** Paid answers between the database's outages. */
const between = 20
/** How long PostgreSQL stays stopped in the second outage. */
const downMs = 10_000
/** Every process answers /readyz 200 this long after the database is back, at most. */
const readyWithinMs = 15_000

let chain: ExternalChain
let cluster: Cluster
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined
let admin: Pg.Client | undefined
let api: ProductionApi

/** An HTTP answer a buyer's request got from a process (the load balancer's view: 402s included). */
type Answer = { status: number; retryAfter: string | null; body: string; port: number }

let run: {
  /** Phases in which the buyers' payments stopped being answered. */
  stalled: string[]
  answers: Answer[]
  /** Paid answers (200 with a successful PAYMENT-RESPONSE), by transaction. */
  answered: Set<string>
  /** ms from the database being back to every process's /readyz 200, per outage. */
  readyAfter: { restart: number[]; stopped: number[] }
  /** Processes that exited, with their stderr. */
  exited: { port: number; code: number | null; stderr: string }[]
  journalLeft: number
  chain: Awaited<ReturnType<ReturnType<typeof startLogCollector>['finish']>>
  ledger: LedgerRow[]
}

/** ms until every process answers /readyz 200 (each polled every 100 ms), or undefined after `timeoutMs`. */
async function allReady(processes: ServeProcess[], timeoutMs: number): Promise<number[]> {
  const started = performance.now()
  return Promise.all(
    processes.map(async (svc) => {
      while (performance.now() - started < timeoutMs) {
        const answer = await fetchDirect(`http://127.0.0.1:${svc.ready.port}/readyz`).catch(() => undefined)
        await answer?.arrayBuffer()
        if (answer?.status === 200) return Math.round(performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      return Number.POSITIVE_INFINITY
    }),
  )
}

beforeAll(async () => {
  if (!runs) return
  ;[chain, upstream] = await Promise.all([startExternalChain(), startUpstream()])
  cluster = await startCluster({
    facilitatorUrl: chain.facilitatorUrl,
    network: chain.network,
    rpcUrl: chain.rpcUrl,
    extraArgs: ['--allow-upstream', '127.0.0.3', '--auto-verify'],
  })
  const [first] = await Promise.all([cluster.start(), cluster.start(), cluster.start()])
  admin = await connectAdmin(cluster.adminUrl)
  api = await createProductionApi(first!, {
    network: chain.network,
    usdc: chain.usdc,
    upstreamUrl: upstream.url,
    maxTimeoutSeconds: 12,
  })
  await admin.end()
  admin = undefined

  // Every answer the processes give, as the load balancer passes it on.
  const answers: Answer[] = []
  const balancer = loadBalancer(cluster.processes)
  const recorded = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const response = await balancer.fetch(input, init)
    const body = response.status === 200 ? '' : await response.clone().text()
    answers.push({ status: response.status, retryAfter: response.headers.get('retry-after'), body, port: 0 })
    return response
  }) as typeof fetch
  const buyers = newBuyers(4, chain.network, chain.usdc, recorded)
  await Promise.all(buyers.map((buyer) => chain.fund(buyer.account.address, 1)))
  const logs = startLogCollector(chain.rpcUrl, chain.usdc, api.payTo, api.amount, await getBlockNumber(chain.rpcUrl))

  // The buyers: each pays in a loop, a moment's pause after anything but a paid answer.
  const answered = new Set<string>()
  let stopped = false
  const waiters: { count: number; resolve: () => void }[] = []
  const loops = buyers.map(async ({ pay }) => {
    while (!stopped) {
      let paid = false
      try {
        const response = await pay(api.url)
        await response.arrayBuffer()
        const header = response.headers.get('payment-response')
        const settled = header ? decodePaymentResponseHeader(header) : undefined
        if (response.status === 200 && settled?.success) {
          paid = true
          answered.add(settled.transaction)
          for (const waiter of waiters.filter((entry) => answered.size >= entry.count)) {
            waiters.splice(waiters.indexOf(waiter), 1)
            waiter.resolve()
          }
        }
      } catch (error) {
        answers.push({ status: 0, retryAfter: null, body: String((error as Error).message), port: 0 })
      }
      if (!paid) await new Promise((resolve) => setTimeout(resolve, 200))
    }
  })
  /** Waits for `count` paid answers in all; a phase that gets none for 60 s is noted as stalled. */
  const stalled: string[] = []
  const until = (count: number, phase: string) =>
    new Promise<void>((resolve) => {
      if (answered.size >= count) return resolve()
      const timer = setTimeout(() => {
        stalled.push(`${phase}: ${answered.size} of ${count} payments answered`)
        resolve()
      }, 60_000)
      waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      })
    })

  await until(between, 'before')
  // The first outage: a restart, every session ended.
  await cluster.postgres.restart()
  const restart = await allReady(cluster.processes, readyWithinMs + 15_000)
  await until(answered.size + between, 'after the restart')
  // The second: stopped for 10 s, started again.
  await cluster.postgres.shutdown()
  await new Promise((resolve) => setTimeout(resolve, downMs))
  await cluster.postgres.start()
  const stopped10 = await allReady(cluster.processes, readyWithinMs + 15_000)
  await until(answered.size + between, 'after the stop')
  stopped = true
  await Promise.all(loops)

  admin = await connectAdmin(cluster.adminUrl)
  const deadline = Date.now() + 40_000
  let journalLeft = await journalRows(admin)
  while (journalLeft > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200))
    journalLeft = await journalRows(admin)
  }
  if (journalLeft > 0)
    console.info(
      'serve-postgres-restart: journal rows left',
      (await admin.query('select id, state, owner, settlement_id, created_at from settlement_journal')).rows,
    )
  run = {
    stalled,
    answers,
    answered,
    readyAfter: { restart, stopped: stopped10 },
    exited: cluster.processes
      .filter((svc) => !isRunning(svc))
      .map((svc) => ({ port: svc.ready.port, code: svc.child.exitCode, stderr: svc.stderr().slice(-2000) })),
    journalLeft,
    chain: await logs.finish(),
    // Through a process that lives (the seller's view), else straight from the database.
    ledger: await (async () => {
      const live = cluster.processes.find(isRunning)
      if (live) return readLedger(live, api.token)
      const { rows } = await admin!.query<LedgerRow>('select transaction, payer, delivered, amount from settlements')
      return rows
    })(),
  }
  const count = (status: number) => answers.filter((answer) => answer.status === status).length
  console.info(
    `serve-postgres-restart: ${answered.size} paid answers; answers 200 ${count(200)}, 402 ${count(402)}, 503 ${count(503)}, 500 ${count(500)}, other ${answers.filter((answer) => ![200, 402, 503, 500].includes(answer.status)).length}; /readyz 200 after the restart in ${restart.join(', ')} ms, after the stop in ${stopped10.join(', ')} ms; ${run.exited.length} processes exited; stalled: ${stalled.join('; ') || 'none'}; ${run.chain.transfers.length} transfers on chain, ${run.ledger.length} in the ledger, journal rows left ${journalLeft}`,
  )
  const bodies = new Map<string, number>()
  for (const answer of answers)
    if (answer.status !== 200 && answer.status !== 402) {
      const key = `${answer.status} ${answer.retryAfter ?? '-'} ${answer.body.slice(0, 200)}`
      bodies.set(key, (bodies.get(key) ?? 0) + 1)
    }
  console.info(
    `serve-postgres-restart: answers other than 200 and 402:\n${[...bodies].map(([key, n]) => `  ${n} × ${key}`).join('\n')}`,
  )
  if (process.env.SVC_TEST_VERBOSE)
    for (const svc of cluster.processes) console.info(`process ${svc.ready.port} stderr:\n${svc.stderr().slice(-3000)}`)
}, 300_000)

afterAll(async () => {
  await admin?.end()
  await cluster?.stop()
  await chain?.svc.stop()
  upstream?.server.close()
})

describe.skipIf(!runs)(
  'PostgreSQL restarted, then stopped for 10 s, under three svc serve processes paid by buyers',
  () => {
    test('no process exits', () => {
      expect(run.exited).toEqual([])
    })

    test('the buyers are paid again after each outage', () => {
      expect(run.stalled).toEqual([])
    })

    test('every answer is a 200, a 402, or a 503 with Retry-After: never a 500', () => {
      const wrong = run.answers.filter(
        (answer) => ![200, 402, 503].includes(answer.status) || (answer.status === 503 && !answer.retryAfter),
      )
      expect(wrong.slice(0, 5)).toEqual([])
      expect(run.answers.some((answer) => answer.status === 503)).toBe(true)
    })

    test('every process answers /readyz 200 within 15 s of the database being back', () => {
      for (const ms of [...run.readyAfter.restart, ...run.readyAfter.stopped])
        expect(ms).toBeLessThanOrEqual(readyWithinMs)
    })

    test('the ledger equals the chain: every transfer on chain has exactly one settlement row, nothing charged twice', () => {
      const onChain = run.chain.transfers.filter((hash) => run.chain.authorized.has(hash))
      const recorded = run.ledger.map((row) => row.transaction)
      expect(new Set(onChain).size).toBe(onChain.length)
      expect(recorded.length).toBe(new Set(recorded).size)
      expect(new Set(recorded)).toEqual(new Set(onChain))
      expect(reconcile(run.chain, [...run.answered] as Hex[]).lost).toBe(0)
      expect(run.journalLeft).toBe(0)
    })
  },
)
