/**
 * The gateway's cache version on PostgreSQL (server/db/cache-version.ts, migration 2026_11_27_05): kept in memory
 * from `svc_cache` notifications, so a request reads no version from the database; a write of another process reaches
 * it a moment later and at once through `fresh()` (the read before a 404); this process's own writes are seen at once;
 * statements that change no row leave it; a killed listening connection drops the caches and reads per request until
 * it listens again.
 */
import { sql } from 'kysely'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../../server/db/database.js'
import { registerNotifications, type Notifications } from '../../../server/db/notifications.js'
import { purgeExpired } from '../../../server/db/endpoints.js'
import type { SettlementRow } from '../../../server/db/tables.js'
import type { GatewayStore } from '../../../server/db/gateway-store.js'
import { openGatewayStore } from '../../../server/db/open-gateway-store.js'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'
import { insertSellerRows } from '../../helpers/seller-rows.js'

const runs = testDialects().includes('postgres')
const databases = runs ? testDatabases('postgres') : undefined

const opened: { database: OpenedDatabase; store: GatewayStore }[] = []
afterEach(async () => {
  for (const { database, store } of opened.splice(0)) {
    store.close()
    await database.close()
  }
})

/** Two processes' worth of svc on one database: each its pool, listening connection and gateway store. */
async function twoProcesses() {
  const url = await databases!.url()
  const [a, b] = [await openDatabase(url), await openDatabase(url)]
  const stores = [await openGatewayStore(a.db), await openGatewayStore(b.db)] as const
  opened.push({ database: a, store: stores[0] }, { database: b, store: stores[1] })
  await insertSellerRows(a, { endpoints: [{ id: 'e1', path_pattern: '/a' }] })
  return { a, b, storeA: stores[0], storeB: stores[1] }
}

/** The version of `store` once it is kept in memory (a number, not a read). */
async function inMemory(store: GatewayStore): Promise<number> {
  await vi.waitFor(
    async () => {
      await store.version()
      expect(store.version()).toBeTypeOf('number')
    },
    { timeout: 10_000 },
  )
  return store.version() as number
}

const databaseVersion = async (database: OpenedDatabase) =>
  Number((await database.db.selectFrom('cache_version').select('version').executeTakeFirstOrThrow()).version)

describe.skipIf(!runs)('the cache version on PostgreSQL', () => {
  test("another process's write reaches the version in memory; fresh() reads it at once", async () => {
    const { b, storeA } = await twoProcesses()
    const before = await inMemory(storeA)
    // Right after another process's write, A's notification may not be there yet: fresh() reads the write anyway.
    await b.db.updateTable('endpoints').set({ enabled: 0 }).where('id', '=', 'e1').execute()
    const fresh = await storeA.fresh!()
    expect(fresh).not.toBe(before)
    // And without asking: the notification moves the version in memory.
    await b.db.updateTable('endpoints').set({ enabled: 1 }).where('id', '=', 'e1').execute()
    await vi.waitFor(() => expect(storeA.version()).not.toBe(fresh), { timeout: 5_000 })
    expect(storeA.version()).toBeTypeOf('number')
  })

  test('notifications that lag: a request keeps the version in memory, the read before a 404 finds the write', async () => {
    const url = await databases!.url()
    const [a, b] = [await openDatabase(url), await openDatabase(url)]
    // A's listening connection, as if every notification were still on its way: it listens, and nothing arrives.
    const lagging: Notifications = {
      listening: true,
      backendPid: undefined,
      subscribe: () => ({ ready: Promise.resolve(true), stop: async () => {} }),
      close: async () => {},
    }
    registerNotifications(a.db, lagging)
    const storeA = await openGatewayStore(a.db)
    opened.push({ database: a, store: storeA }, { database: b, store: await openGatewayStore(b.db) })
    await insertSellerRows(a, { endpoints: [{ id: 'e1', path_pattern: '/a' }] })
    const before = await inMemory(storeA)
    await b.db.updateTable('endpoints').set({ enabled: 0 }).where('id', '=', 'e1').execute()
    expect(storeA.version()).toBe(before)
    const fresh = await storeA.fresh!()
    expect(fresh).not.toBe(before)
    expect(storeA.version()).toBe(fresh)
  })

  test("this process's own write is read at once; a write inside a transaction once it commits", async () => {
    const { a, storeA } = await twoProcesses()
    const before = await inMemory(storeA)
    await a.db.updateTable('apis').set({ name: 'renamed' }).where('id', '=', 'a1').execute()
    // The write was noticed: this request reads the version instead of waiting for the notification.
    const after = storeA.version()
    expect(after).toBeInstanceOf(Promise)
    expect(await after).not.toBe(before)
    const current = await inMemory(storeA)
    await a.db.transaction().execute(async (trx) => {
      await trx.updateTable('apis').set({ name: 'again' }).where('id', '=', 'a1').execute()
    })
    expect(await storeA.version()).not.toBe(current)
  })

  test('statements that change no row, and settlements that use up no endpoint, leave the version', async () => {
    const { a, storeA } = await twoProcesses()
    await inMemory(storeA)
    const before = await databaseVersion(a)
    await purgeExpired(a.db, 'a1', new Date().toISOString())
    await a.db.updateTable('endpoints').set({ enabled: 0 }).where('id', '=', 'nothing').execute()
    const journalId = 'j1'
    await storeA.openJournal(testJournalRow(journalId, payment))
    expect(await storeA.recordSettlement(settlementRow(), undefined, journalId)).toBe(true)
    await storeA.closeJournal(journalId, 's1')
    expect(await databaseVersion(a)).toBe(before)
  })

  test('a killed listening connection drops the caches, reads per request, then keeps it in memory again', async () => {
    const { a, b, storeA } = await twoProcesses()
    const before = await inMemory(storeA)
    const pid = a.notifications!.backendPid
    await sql`select pg_terminate_backend(${pid})`.execute(b.db)
    // The label changes (every cache is dropped) and, until A listens again, a request reads the version.
    await vi.waitFor(() => expect(a.notifications!.listening).toBe(false), { timeout: 5_000 })
    expect(await storeA.version()).not.toBe(before)
    // A write meanwhile (its notification may be lost) is seen.
    const dropped = await storeA.version()
    await b.db.updateTable('endpoints').set({ enabled: 0 }).where('id', '=', 'e1').execute()
    expect(await storeA.version()).not.toBe(dropped)
    const again = await inMemory(storeA)
    expect(a.notifications!.backendPid).not.toBe(pid)
    await b.db.updateTable('endpoints').set({ enabled: 1 }).where('id', '=', 'e1').execute()
    await vi.waitFor(() => expect(storeA.version()).not.toBe(again), { timeout: 5_000 })
  })
})

const payment = {
  api_id: 'a1',
  endpoint_id: 'e1',
  user_id: 'u1',
  environment: 'development',
  network: 'eip155:845320402',
  asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  amount: '1000',
  payer: '0x1',
  pay_to: '0x2',
  method: 'GET',
  path: '/a',
  chain_epoch: '',
} as const

const settlementRow = (): SettlementRow => ({
  ...payment,
  id: 's1',
  transaction: '0x1',
  created_at: new Date().toISOString(),
  delivered: 1,
  builder_code: null,
})
