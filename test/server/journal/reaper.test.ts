/**
 * The reaper (server/cluster/reaper.ts) on a PostgreSQL database two processes share: the rows of a process that is
 * alive are never touched; once its liveness session is gone, the survivor takes its lock and resolves its journal
 * rows and pending channel actions. SQLite has no reaper. (The kill of a real `svc serve` with a payment in flight is
 * test/cli/serve-recovery.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { saveChannelAction } from '../../../server/db/channel-actions.js'
import { openDatabase } from '../../../server/db/database.js'
import { processOwnerOf } from '../../../server/db/process-owner.js'
import type { SettlementJournalRow } from '../../../server/db/tables.js'
import { insertUser } from '../../../server/db/users.js'
import type { ServerDeps } from '../../../server/deps.js'
import { startJournalReaper } from '../../../server/cluster/reaper.js'
import { resolveChannelActions, resolveChannelJournalRow } from '../../../server/channels/index.js'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { startPostgres, testDatabases, testDialects, type TestPostgres } from '../../helpers/postgres.js'

/** What server/start/ passes the reaper: the channels room's resolvers. */
const channelResolvers = { resolveChannelActions, channelRow: resolveChannelJournalRow }

const at = '2026-11-26T00:00:00.000Z'

/** A production row on a network svc has no RPC for: a gone owner's is resolved as one that cannot be checked. */
const journalRow = (id: string, owner: string): SettlementJournalRow =>
  testJournalRow(id, { environment: 'production', network: 'eip155:8453', created_at: at, owner })

describe.runIf(testDialects().includes('postgres'))('on PostgreSQL', () => {
  const databases = testDatabases('postgres')
  let services: ChainServices
  beforeAll(async () => {
    services = await startChainServices()
  }, 60_000)
  afterAll(async () => services?.stop())

  test("a live owner's rows are left alone; a gone owner's journal rows and channel actions are resolved by the survivor", async () => {
    const url = await databases.url()
    const [survivor, doomed] = [await openDatabase(url), await openDatabase(url)]
    const logs: string[] = []
    const deps = { db: survivor.db, chain: services, log: (line: string) => logs.push(line) } as unknown as ServerDeps
    // A long period: the test looks itself.
    const reaper = startJournalReaper(deps, { everyMs: 3_600_000, ownerGraceMs: 0, ...channelResolvers })!
    try {
      const gone = processOwnerOf(doomed.db).id
      await insertUser(survivor.db, {
        id: 'u1',
        email: 'u1@example.test',
        password_hash: 'h',
        password_salt: 's',
        email_verified_at: null,
        created_at: at,
      })
      await survivor.db.insertInto('settlement_journal').values(journalRow('j1', gone)).execute()
      const action = {
        id: 'cha_1',
        network: services.sandboxChain.network,
        chainEpoch: 'an-earlier-chain',
        kind: 'settle' as const,
        receiver: '0x2',
        token: '0xa',
        payer: null,
        detail: { kind: 'settle' as const },
        fromBlock: '0',
        state: 'pending' as const,
        transaction: null,
        amount: null,
        error: null,
        createdAt: at,
        resolvedAt: null,
      }
      await saveChannelAction(survivor.db, action, gone)
      const journal = () => survivor.db.selectFrom('settlement_journal').select('id').execute()
      const actionState = async () =>
        (await survivor.db.selectFrom('channel_actions').select('state').executeTakeFirstOrThrow()).state

      // Its owner lives: nothing is touched.
      expect(await reaper.reapOnce()).toEqual([])
      expect(await journal()).toEqual([{ id: 'j1' }])
      expect(await actionState()).toBe('pending')

      // Its session ends (a kill ends it the same way): the survivor resolves its rows.
      await doomed.close()
      expect(await reaper.reapOnce()).toEqual([gone])
      expect(await journal()).toEqual([])
      expect(await actionState()).toBe('failed')
      expect(logs.join('\n')).toContain(`the process ${gone} is gone: 1 unfinished payment(s) and 1 channel action(s)`)
      expect(logs.join('\n')).toContain('no RPC is given for eip155:8453: start svc with --rpc eip155:8453=<url>')
      // Nothing is left to look at.
      expect(await reaper.reapOnce()).toEqual([])
    } finally {
      await reaper.close()
      await doomed.close()
      await survivor.close()
    }
  })
})

describe.runIf(testDialects().includes('postgres'))('on PostgreSQL, rows left for a later try', () => {
  const databases = testDatabases('postgres')

  test("a gone owner's row that cannot be settled yet is tried again soon, then after waits twice as long each time", async () => {
    const url = await databases.url()
    const [survivor, doomed] = [await openDatabase(url), await openDatabase(url)]
    // No chain services: a Sandbox payment's row cannot be checked, so it is kept for a later try.
    const deps = { db: survivor.db, log: () => {} } as unknown as ServerDeps
    const reaper = startJournalReaper(deps, {
      everyMs: 3_600_000,
      retryKeptFirstMs: 1_000,
      ownerGraceMs: 0,
      ...channelResolvers,
    })!
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    try {
      const gone = processOwnerOf(doomed.db).id
      await insertUser(survivor.db, {
        id: 'u1',
        email: 'u1@example.test',
        password_hash: 'h',
        password_salt: 's',
        email_verified_at: null,
        created_at: at,
      })
      await survivor.db
        .insertInto('settlement_journal')
        .values(testJournalRow('j1', { owner: gone }))
        .execute()
      await doomed.close()
      expect(await reaper.reapOnce()).toEqual([gone])
      // Kept: the next try is 1 s later, then 2 s after that.
      expect(await reaper.reapOnce()).toEqual([])
      await pause(1_100)
      expect(await reaper.reapOnce()).toEqual([gone])
      await pause(1_100)
      expect(await reaper.reapOnce()).toEqual([])
      await pause(1_000)
      expect(await reaper.reapOnce()).toEqual([gone])
      expect(await survivor.db.selectFrom('settlement_journal').select('id').execute()).toEqual([{ id: 'j1' }])
    } finally {
      await reaper.close()
      await doomed.close()
      await survivor.close()
    }
  })
})

describe.runIf(testDialects().includes('postgres'))('on PostgreSQL, after the database restarted', () => {
  let postgres: TestPostgres | undefined
  afterAll(async () => postgres?.stop())

  test('no owner is taken for gone for a while: the live processes have not taken their locks again yet', async () => {
    postgres = await startPostgres()
    const url = await postgres.createDatabase()
    const [survivor, doomed] = [await openDatabase(url), await openDatabase(url)]
    const deps = { db: survivor.db, log: () => {} } as unknown as ServerDeps
    const reaper = startJournalReaper(deps, {
      everyMs: 3_600_000,
      restartGraceMs: 3_000,
      ownerGraceMs: 0,
      ...channelResolvers,
    })!
    try {
      const gone = processOwnerOf(doomed.db).id
      await insertUser(survivor.db, {
        id: 'u1',
        email: 'u1@example.test',
        password_hash: 'h',
        password_salt: 's',
        email_verified_at: null,
        created_at: at,
      })
      await survivor.db.insertInto('settlement_journal').values(journalRow('j1', gone)).execute()
      await doomed.close()
      // The grace counts from the server's start, which falls between these two instants.
      const restartAsked = Date.now()
      await postgres.restart()
      const restartedAt = Date.now()
      // Every session ended: a lock nobody holds says nothing yet (the survivor's pool may need a try to reconnect).
      expect(await vi.waitFor(() => reaper.reapOnce(), { timeout: 2_000, interval: 50 })).toEqual([])
      expect(Date.now() - restartedAt).toBeLessThan(3_000)
      expect(await survivor.db.selectFrom('settlement_journal').select('id').execute()).toEqual([{ id: 'j1' }])
      // Once the grace is over, the owner whose lock is still free is gone.
      await vi.waitFor(async () => expect(await reaper.reapOnce()).toEqual([gone]), { timeout: 10_000, interval: 200 })
      expect(Date.now() - restartAsked).toBeGreaterThanOrEqual(3_000)
      expect(await survivor.db.selectFrom('settlement_journal').select('id').execute()).toEqual([])
    } finally {
      await reaper.close()
      await survivor.close()
    }
  }, 60_000)
})

describe('on SQLite', () => {
  const databases = testDatabases('sqlite')
  test('there is no reaper: one process per data dir, its start resolves what an earlier one left', async () => {
    const database = await databases.open()
    try {
      expect(startJournalReaper({ db: database.db } as unknown as ServerDeps, channelResolvers)).toBeUndefined()
    } finally {
      await database.close()
    }
  })
})
