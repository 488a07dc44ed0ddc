/**
 * The data layer on both dialects (SQLite, and PostgreSQL where the machine has it): sellers and their API keys,
 * APIs in insertion order, exact uint256 revenue sums, and the settlement journal's rows owned by a process.
 */
import { sql } from 'kysely'
import { describe, expect, test, vi } from 'vitest'
import { ConflictError } from '../../../core/errors.js'
import { findApiKeyCaller, insertApiKey, listApiKeys } from '../../../server/db/api-keys.js'
import { insertApi, listApis } from '../../../server/db/apis.js'
import { processOwnerOf } from '../../../server/db/process-owner.js'
import { openDatabase } from '../../../server/db/database.js'
import { dailyRevenue } from '../../../server/db/settlements.js'
import type { ApiRow, Database, SettlementJournalRow, SettlementRow } from '../../../server/db/tables.js'
import { insertUser } from '../../../server/db/users.js'
import type { ServerDeps } from '../../../server/deps.js'
import { resolveSettlementJournal } from '../../../server/journal/recovery.js'
import type { Kysely } from 'kysely'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { testDatabases, testDialects } from '../../helpers/postgres.js'

const at = '2026-11-26T00:00:00.000Z'
const owner = { user: { id: 'u1' }, environment: 'development' as const }

async function addSeller(db: Kysely<Database>, id = 'u1', email = `${id}@example.test`) {
  await insertUser(db, { id, email, password_hash: 'h', password_salt: 's', email_verified_at: null, created_at: at })
}

const api = (id: string, slug: string): ApiRow => ({
  id,
  user_id: 'u1',
  environment: 'development',
  name: id,
  slug,
  upstream_base_url: 'http://127.0.0.1:9',
  pay_to_mode: 'user_wallet',
  pay_to_address: null,
  discovery_guidance: null,
  discovery_contact_email: null,
  openapi_version: '1.0.0',
  created_at: at,
  updated_at: at,
})

const settlement = (id: string, amount: string): SettlementRow => ({
  id,
  api_id: 'a1',
  endpoint_id: null,
  user_id: 'u1',
  environment: 'development',
  network: 'eip155:845320402',
  asset: '0xa',
  amount,
  payer: '0x1',
  pay_to: '0x2',
  transaction: `0x${id}`,
  method: 'GET',
  path: '/',
  created_at: at,
  chain_epoch: '',
  delivered: 1,
  builder_code: null,
})

describe.each(testDialects())('the data layer on %s', (dialect) => {
  const databases = testDatabases(dialect)

  test('sellers and API keys: a taken email is a conflict, keys list newest first and authenticate with their user', async () => {
    const { db, close } = await databases.open()
    try {
      await addSeller(db)
      await expect(addSeller(db, 'u2', 'u1@example.test')).rejects.toBeInstanceOf(ConflictError)
      const key = { user_id: 'u1', name: 'k', environment: 'development' as const, prefix: 'svc_sandbox_ab' }
      const scopes = JSON.stringify(['apis:read'])
      const extra = { scopes, last_used_at: null, revoked_at: null }
      await insertApiKey(db, { ...key, ...extra, id: 'k1', key_hash: 'h1', created_at: '2026-11-26T00:00:01.000Z' })
      await insertApiKey(db, { ...key, ...extra, id: 'k2', key_hash: 'h2', created_at: '2026-11-26T00:00:02.000Z' })
      expect((await listApiKeys(db, owner)).map((row) => row.id)).toEqual(['k2', 'k1'])
      const caller = await findApiKeyCaller(db, 'h1')
      expect(caller?.key).toMatchObject({ id: 'k1', scopes, revoked_at: null })
      expect(caller?.user).toMatchObject({ id: 'u1', email: 'u1@example.test' })
    } finally {
      await close()
    }
  })

  test('APIs created in the same millisecond list in insertion order; a taken slug is a conflict', async () => {
    const { db, close } = await databases.open()
    try {
      await addSeller(db)
      for (const [id, slug] of [
        ['api_z', 'zeta'],
        ['api_a', 'alpha'],
        ['api_M', 'mu'],
      ] as const)
        await insertApi(db, api(id, slug))
      await expect(insertApi(db, api('api_b', 'alpha'))).rejects.toBeInstanceOf(ConflictError)
      expect((await listApis(db, owner)).map((row) => row.id)).toEqual(['api_z', 'api_a', 'api_M'])
    } finally {
      await close()
    }
  })

  test('revenue sums uint256 amounts exactly and counts malformed amounts as 0', async () => {
    const { db, close } = await databases.open()
    try {
      await addSeller(db)
      const max = 2n ** 256n - 1n
      await db
        .insertInto('settlements')
        .values([
          settlement('s1', max.toString()),
          settlement('s2', max.toString()),
          settlement('s3', '1'),
          settlement('s4', ''),
          settlement('s5', '12a'),
          settlement('s6', '-5'),
        ])
        .execute()
      const rows = await dailyRevenue(db, owner, { from: '2026-11-26', before: '2026-11-27' })
      expect(rows).toEqual([
        { day: '2026-11-26', network: 'eip155:845320402', asset: '0xa', settlements: 6, amount: 2n * max + 1n },
      ])
    } finally {
      await close()
    }
  })

  test('settlement journal recovery resolves rows of processes that are gone, never those of a running one', async () => {
    const url = await databases.url()
    const database = await openDatabase(url)
    const { db } = database
    // On PostgreSQL, a second process on the same database; on SQLite a file has one process (its data dir's lock).
    const other = dialect === 'postgres' ? await openDatabase(url) : undefined
    try {
      await addSeller(db)
      const me = processOwnerOf(db).id
      const running = other ? processOwnerOf(other.db).id : undefined
      expect(running).not.toBe(me)
      await db
        .insertInto('settlements')
        .values([settlement('s1', '1'), settlement('s2', '1'), settlement('s3', '1')])
        .execute()
      const rows = [
        journalRow('j_before_owners', 's1', null),
        journalRow('j_earlier_boot', 's2', 'proc_earlierboot'),
        ...(running ? [journalRow('j_running', 's3', running)] : []),
      ]
      await db.insertInto('settlement_journal').values(rows).execute()
      const deps = { db, log: () => {} } as unknown as ServerDeps
      expect(await resolveSettlementJournal(deps)).toMatchObject({ undelivered: 2, kept: 0 })
      const left = async () => (await db.selectFrom('settlement_journal').select('id').execute()).map((row) => row.id)
      expect(await left()).toEqual(running ? ['j_running'] : [])
      if (!other) return
      // The running process stops (or dies: PostgreSQL ends its session either way): its row is now this one's to resolve.
      await other.close()
      expect(await resolveSettlementJournal(deps)).toMatchObject({ undelivered: 1 })
      expect(await left()).toEqual([])
      const delivered = await db.selectFrom('settlements').select(['id', 'delivered']).orderBy('id').execute()
      expect(delivered).toEqual([
        { id: 's1', delivered: 0 },
        { id: 's2', delivered: 0 },
        { id: 's3', delivered: 0 },
      ])
    } finally {
      await other?.close()
      await database.close()
    }
  })

  test.runIf(dialect === 'postgres')(
    'a process whose liveness connection breaks takes its lock again: it is not taken for gone for long',
    async () => {
      const url = await databases.url()
      const [first, second] = [await openDatabase(url), await openDatabase(url)]
      try {
        const id = processOwnerOf(first.db).id
        const watcher = processOwnerOf(second.db)
        expect(await watcher.isGone(id)).toBe(false)
        // The server ends the first process's liveness session (as a dropped connection would).
        const { rows } = await sql<{ ended: boolean }>`
          select pg_terminate_backend(pid) as ended from pg_locks
          where locktype = 'advisory' and granted and objid = (hashtextextended(${id}, 0) & x'ffffffff'::bigint)::oid`.execute(
          second.db,
        )
        expect(rows).toEqual([{ ended: true }])
        await vi.waitFor(async () => expect(await watcher.isGone(id)).toBe(false), { timeout: 10_000, interval: 100 })
      } finally {
        await second.close()
        await first.close()
      }
    },
  )
})

/** A row that names its settlement, written earlier (recovery takes only rows older than its start). */
function journalRow(id: string, settlementId: string, owner: string | null): SettlementJournalRow {
  return testJournalRow(id, { settlement_id: settlementId, owner, created_at: '2026-11-25T00:00:00.000Z' })
}
