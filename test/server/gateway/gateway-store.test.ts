import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import type { SettlementJournalRow, SettlementRow } from '../../../server/db/tables.js'
import type { GatewayStore } from '../../../server/db/gateway-store.js'
import { openGatewayStore } from '../../../server/db/open-gateway-store.js'
import { createSqliteCatalogStore } from '../../../server/db/bazaar-resources.js'
import type { CatalogItem } from '../../../chain/facilitator/index.js'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { testDialects, testDatabases } from '../../helpers/postgres.js'
import { insertSellerRows } from '../../helpers/seller-rows.js'

/** A database file and a `:memory:` one on SQLite, and a PostgreSQL database where the machine has PostgreSQL. */
const postgres = testDialects().includes('postgres') ? testDatabases('postgres') : undefined
const kinds = ['file', 'memory', ...(postgres ? ['postgres'] : [])] as ('file' | 'memory' | 'postgres')[]

let opened: { database: OpenedDatabase; store: GatewayStore; dir?: string } | undefined
afterEach(async () => {
  opened?.store.close()
  await opened?.database.close()
  if (opened?.dir) rmSync(opened.dir, { recursive: true, force: true })
  opened = undefined
})

async function open(file: 'file' | 'memory' | 'postgres') {
  const dir = file === 'file' ? mkdtempSync(join(tmpdir(), 'svc-store-')) : undefined
  const location = file === 'postgres' ? await postgres!.url() : dir ? join(dir, 'svc.sqlite') : ':memory:'
  const database = await openDatabase(location)
  const store = await openGatewayStore(database.db)
  opened = { database, store, ...(dir ? { dir } : {}) }
  await insertSellerRows(database, {
    endpoints: [
      { id: 'e1', path_pattern: '/a' },
      { id: 'e2', path_pattern: '/b' },
    ],
  })
  return { db: database.db, store }
}

let transactions = 0
const settlement = (): SettlementRow => ({
  id: `s${++transactions}`,
  api_id: 'a1',
  endpoint_id: 'e1',
  user_id: 'u1',
  environment: 'development',
  network: 'eip155:845320402',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  amount: '1000',
  payer: '0x1',
  pay_to: '0x2',
  transaction: `0x${transactions}`,
  method: 'GET',
  path: '/a',
  created_at: new Date().toISOString(),
  chain_epoch: '',
  delivered: 1,
  builder_code: null,
})
const traffic = {
  api_id: 'a1',
  user_id: 'u1',
  environment: 'development' as const,
  day: '2026-11-21',
  requests: 2,
  payment_required: 1,
  paid_requests: 1,
}

/** A kept payment-identifier answer of `bytes` bytes. */
const answer = (paymentId: string, createdAt: string, bytes: number) => ({
  api_id: 'a1',
  payer: '0xpayer',
  payment_id: paymentId,
  request_key: 'GET /a',
  payment_key: `key-${paymentId}`,
  settlement_id: 's1',
  status: 200,
  headers: '{}',
  body: Buffer.alloc(bytes, 1),
  body_bytes: bytes,
  created_at: createdAt,
})

describe.each(kinds)('the gateway store on a %s database', (kind) => {
  test('its version moves with writes of others, and with a used-up endpoint; own bookkeeping moves it only in memory', async () => {
    const { db, store } = await open(kind)
    let version = await store.version()
    expect(await store.version()).toBe(version)
    await db.updateTable('endpoints').set({ enabled: 0 }).where('id', '=', 'e2').execute()
    expect(await store.version()).not.toBe(version)
    version = await store.version()

    expect(await store.recordSettlement(settlement(), undefined)).toBe(true)
    await store.addTraffic([traffic, traffic])
    // On a file the gateway's own statements are taken off the version, and on PostgreSQL only writes of APIs,
    // endpoints and domains move it: its writes leave its caches be.
    if (kind !== 'memory') expect(await store.version()).toBe(version)
    version = await store.version()
    expect(await db.selectFrom('api_daily_stats').select(['requests', 'paid_requests']).executeTakeFirst()).toEqual({
      requests: 4,
      paid_requests: 2,
    })

    expect(await store.recordSettlement({ ...settlement(), endpoint_id: null }, 'e1')).toBe(true)
    expect(await store.version()).not.toBe(version)
    expect(await db.selectFrom('endpoints').select('id').execute()).toEqual([{ id: 'e2' }])
    expect(await db.selectFrom('settlements').select('id').execute()).toHaveLength(2)
  })

  test("the bazaar catalog's listings written beside it leave the version be (a paid request's listing empties no cache)", async () => {
    const { db, store } = await open(kind)
    const catalog = createSqliteCatalogStore(db)
    const version = await store.version()
    const resource = 'http://weather.dev.localhost/weather/paris'
    const item = {
      resource,
      type: 'http',
      x402Version: 2,
      accepts: [],
      lastUpdated: new Date().toISOString(),
      discoveryInfo: { input: { type: 'http', method: 'GET' } },
      metadata: {},
    } as CatalogItem
    const entry = { key: `http GET ${resource}`, type: 'http', payTo: '0x2', scheme: 'exact', network: 'eip155:1' }
    await catalog.put([{ ...entry, updatedAt: Date.now(), item }])
    await catalog.put([{ ...entry, updatedAt: Date.now() + 1, item }])
    if (kind !== 'memory') expect(await store.version()).toBe(version)
    expect((await catalog.list({ limit: 10, offset: 0 })).items).toEqual([item])
    // A seller's write still moves it.
    await db.updateTable('endpoints').set({ enabled: 0 }).where('id', '=', 'e2').execute()
    expect(await store.version()).not.toBe(version)
  })

  test('payment-identifier answers: kept, replaced, found while young; keeping one leaves the version be', async () => {
    const { db, store } = await open(kind)
    const version = await store.version()
    const bounds = { since: '2026-11-01T00:00:00.000Z', maxRows: 10, maxBytes: 1000 }
    await store.keepPaymentAnswer(answer('p1', '2026-11-02T00:00:00.000Z', 10), bounds)
    await store.keepPaymentAnswer({ ...answer('p1', '2026-11-03T00:00:00.000Z', 20), status: 201 }, bounds)
    // The gateway's own bookkeeping, like a settlement: its caches stay (before: every kept answer emptied them).
    if (kind === 'file') expect(await store.version()).toBe(version)
    const key = { apiId: 'a1', payer: '0xpayer', paymentId: 'p1' }
    expect(await store.findPaymentAnswer(key, '2026-11-01T00:00:00.000Z')).toEqual({
      ...answer('p1', '2026-11-03T00:00:00.000Z', 20),
      status: 201,
    })
    expect(await store.findPaymentAnswer(key, '2026-11-04T00:00:00.000Z')).toBeUndefined()
    expect(await store.findPaymentAnswer({ ...key, paymentId: 'p2' }, '2026-11-01T00:00:00.000Z')).toBeUndefined()
    expect(await db.selectFrom('payment_answers').select('payment_id').execute()).toHaveLength(1)
  })

  test('payment-identifier answers are trimmed: older than `since`, then the oldest past the rows or the bytes', async () => {
    const { db, store } = await open(kind)
    const kept = async () =>
      (await db.selectFrom('payment_answers').select('payment_id').orderBy('created_at').execute()).map(
        (row) => row.payment_id,
      )
    const bounds = { since: '2026-11-02T00:00:00.000Z', maxRows: 3, maxBytes: 100 }
    await store.keepPaymentAnswer(answer('old', '2026-11-01T00:00:00.000Z', 10), { ...bounds, since: '' })
    for (const [index, id] of ['p1', 'p2', 'p3'].entries())
      await store.keepPaymentAnswer(answer(id, `2026-11-0${index + 3}T00:00:00.000Z`, 10), bounds)
    expect(await kept()).toEqual(['p1', 'p2', 'p3'])
    await store.keepPaymentAnswer(answer('p4', '2026-11-07T00:00:00.000Z', 10), bounds)
    expect(await kept()).toEqual(['p2', 'p3', 'p4'])
    await store.keepPaymentAnswer(answer('big', '2026-11-08T00:00:00.000Z', 95), bounds)
    expect(await kept()).toEqual(['big'])
  })

  test('a transaction already recorded is refused', async () => {
    const { store } = await open(kind)
    const row = settlement()
    expect(await store.recordSettlement(row, undefined)).toBe(true)
    expect(await store.recordSettlement({ ...row, id: 'other' }, undefined)).toBe(false)
  })

  test('while the main connection is inside a transaction, a settlement waits for it instead of failing', async () => {
    const { db, store } = await open(kind)
    let recording: Promise<boolean> | undefined
    await db.transaction().execute(async (trx) => {
      await trx.updateTable('endpoints').set({ description: 'busy' }).where('id', '=', 'e2').execute()
      recording = store.recordSettlement(settlement(), undefined)
      await new Promise((resolve) => setImmediate(resolve))
    })
    expect(await recording).toBe(true)
    expect(await db.selectFrom('settlements').select('id').execute()).toHaveLength(1)
  })

  test('the journal: a row of the same payment replaces the earlier one; the record names it; an undelivered close marks the settlement', async () => {
    const { db, store } = await open(kind)
    const row = journalRow('j1', 'p1')
    await store.openJournal(row)
    await store.openJournal({ ...journalRow('j2', 'p1'), owner: 'proc_b' })
    expect(await db.selectFrom('settlement_journal').select(['id', 'payment_id', 'owner']).execute()).toEqual([
      { id: 'j2', payment_id: 'p1', owner: 'proc_b' },
    ])
    const recorded = settlement()
    expect(await store.recordSettlement(recorded, undefined, 'j2')).toBe(true)
    expect(await db.selectFrom('settlement_journal').select('settlement_id').executeTakeFirst()).toEqual({
      settlement_id: recorded.id,
    })
    // A transaction recorded already: nothing written, the journal row is not named.
    await store.openJournal(journalRow('j3', 'p3'))
    expect(await store.recordSettlement({ ...recorded, id: 'again' }, 'e2', 'j3')).toBe(false)
    expect(
      await db.selectFrom('settlement_journal').select('settlement_id').where('id', '=', 'j3').executeTakeFirst(),
    ).toEqual({
      settlement_id: null,
    })
    expect(await db.selectFrom('endpoints').select('id').where('id', '=', 'e2').execute()).toHaveLength(1)
    await store.closeJournal('j2', recorded.id, false)
    await store.closeJournal('j3')
    expect(await db.selectFrom('settlement_journal').selectAll().execute()).toEqual([])
    expect(await db.selectFrom('settlements').select(['id', 'delivered']).execute()).toEqual([
      { id: recorded.id, delivered: 0 },
    ])
  })
})

/** Payment `paymentId`'s journal row, written by process `proc_a`. */
function journalRow(id: string, paymentId: string): SettlementJournalRow {
  return testJournalRow(id, { payment_id: paymentId, owner: 'proc_a' })
}
