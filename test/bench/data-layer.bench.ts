/**
 * The data layer's share of a paid request, on SQLite (svc's file: one exclusive connection, the gateway's prepared
 * statements) and on PostgreSQL (a pool, durable: PostgreSQL's default settings on this machine's Debian server),
 * in rounds that alternate which goes first. One payment's bookkeeping is what the gateway writes for it
 * (server/gateway/payment-flow.ts): the cache version read of the request (on PostgreSQL kept in memory from
 * notifications since issue 26's LISTEN/NOTIFY; before, a query), on PostgreSQL the payment's claim (its journal row,
 * written before verify: server/cluster/payment-claims.ts; SQLite's is in memory), the journal row before
 * the settlement,
 * the settlement's record naming it, the row's close, and a share of the traffic counters (flushed every 250 ms: one
 * flush per 25 payments here).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { openDatabase, type OpenedDatabase } from '../../server/db/database.js'
import type { GatewayStore } from '../../server/db/gateway-store.js'
import { openGatewayStore } from '../../server/db/open-gateway-store.js'
import { newId } from '../../server/ids.js'
import { claimJournalRow } from '../../server/db/settlement-journal.js'
import type { SettlementJournalRow } from '../../server/db/tables.js'
import { testJournalRow } from '../helpers/journal-rows.js'
import { startPostgres } from '../helpers/postgres.js'
import { percentile, round } from './pool.js'
import { insertSellerRows } from '../helpers/seller-rows.js'

export type DataLayerBenchOptions = {
  /** Rounds per dialect. @defaultValue 6 */
  rounds?: number
  /** Payments per dialect and round. @defaultValue 300 */
  payments?: number
  /** PostgreSQL with its default settings (every commit flushed); false: fsync off, as the tests run it. @defaultValue true */
  durable?: boolean
}

type Side = {
  name: 'sqlite' | 'postgres'
  database: OpenedDatabase
  store: GatewayStore
  /** The payment's claim as the database holds it (PostgreSQL: its journal row); none on SQLite (memory). */
  claim?: ((row: SettlementJournalRow) => Promise<unknown>) | undefined
  micros: number[]
  /** An unpaid request's share: the cache version's read alone. */
  versionMicros: number[]
}

export async function benchDataLayer(options: DataLayerBenchOptions = {}) {
  const { rounds = 6, payments = 300 } = options
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-db-'))
  const postgres = await startPostgres({ durable: options.durable ?? true })
  const sides: Side[] = []
  try {
    for (const [name, location] of [
      ['sqlite', join(dir, 'svc.sqlite')],
      ['postgres', await postgres.createDatabase()],
    ] as const) {
      const database = await openDatabase(location)
      await insertSellerRows(database)
      const claim =
        name === 'postgres'
          ? (row: SettlementJournalRow) => claimJournalRow(database.db, { ...row, state: 'claimed' })
          : undefined
      const store = await openGatewayStore(database.db)
      // On PostgreSQL the version is kept in memory once the store listens (server/db/cache-version.ts).
      for (let waited = 0; typeof store.version() !== 'number' && waited < 100; waited++)
        await new Promise((resolve) => setTimeout(resolve, 50))
      sides.push({ name, database, store, claim, micros: [], versionMicros: [] })
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? sides : [...sides].reverse()
      for (const side of order)
        for (let i = 0; i < payments; i++) {
          side.micros.push(await onePayment(side, i))
          const started = performance.now()
          await side.store.version()
          side.versionMicros.push((performance.now() - started) * 1000)
        }
    }
  } finally {
    for (const side of sides) await side.database.close()
    await postgres.stop()
    rmSync(dir, { recursive: true, force: true })
  }
  const figures = Object.fromEntries(
    sides.map((side) => [
      side.name,
      {
        p50_us: round(percentile(side.micros, 50)),
        p95_us: round(percentile(side.micros, 95)),
        p99_us: round(percentile(side.micros, 99)),
        unpaid_version_read_p50_us: round(percentile(side.versionMicros, 50)),
        unpaid_version_read_p99_us: round(percentile(side.versionMicros, 99)),
      },
    ]),
  ) as Record<
    Side['name'],
    {
      p50_us: number
      p95_us: number
      p99_us: number
      unpaid_version_read_p50_us: number
      unpaid_version_read_p99_us: number
    }
  >
  return {
    payments: rounds * payments,
    rounds,
    ...figures,
    postgres_over_sqlite_p50: round(figures.postgres.p50_us / figures.sqlite.p50_us, 2),
    postgres_extra_p50_ms: round((figures.postgres.p50_us - figures.sqlite.p50_us) / 1000, 2),
  }
}

/** One payment's bookkeeping, timed in microseconds. */
async function onePayment({ store, claim }: Side, index: number): Promise<number> {
  const journalId = newId('jrn')
  const settlementId = newId('stl')
  const now = new Date().toISOString()
  // Built before the clock starts: the gateway's own row of the payment (buildJournalRow), not the database's time.
  const row = testJournalRow(journalId, {
    payment_id: `eip155:845320402|0xa|0xpayer|${journalId}`,
    amount: '10000',
    payer: '0xpayer',
    pay_to: '0xpayto',
    path: '/weather/Paris',
    chain_epoch: 'e',
    created_at: now,
    owner: 'proc_bench',
  })
  const started = performance.now()
  await store.version()
  await claim?.(row)
  await store.openJournal(row)
  await store.recordSettlement(
    {
      id: settlementId,
      api_id: 'a1',
      endpoint_id: 'e1',
      user_id: 'u1',
      environment: 'development',
      network: 'eip155:845320402',
      asset: '0xa',
      amount: '10000',
      payer: '0xpayer',
      pay_to: '0xpayto',
      transaction: `0x${settlementId}`,
      method: 'GET',
      path: '/weather/Paris',
      created_at: now,
      chain_epoch: 'e',
      delivered: 1,
      builder_code: null,
    },
    undefined,
    journalId,
  )
  await store.closeJournal(journalId, settlementId, true)
  if (index % 25 === 0)
    await store.addTraffic([
      {
        api_id: 'a1',
        user_id: 'u1',
        environment: 'development',
        day: now.slice(0, 10),
        requests: 50,
        payment_required: 25,
        paid_requests: 25,
      },
    ])
  return (performance.now() - started) * 1000
}
