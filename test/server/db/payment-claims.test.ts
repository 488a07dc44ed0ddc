/**
 * The claims of the gateway on PostgreSQL (server/db/settlement-journal.ts `claimJournalRow`, server/db/endpoint-
 * claims.ts), between processes: each `openDatabase` below is a process of its own (its pool, its process owner).
 */
import { sql, type Kysely } from 'kysely'
import { describe, expect, test } from 'vitest'
import { openDatabase } from '../../../server/db/database.js'
import {
  claimEndpoint,
  purgeEndpointClaims,
  releaseEndpoint,
  usedUpEndpoints,
} from '../../../server/db/endpoint-claims.js'
import { processOwnerOf } from '../../../server/db/process-owner.js'
import { insertUser } from '../../../server/db/users.js'
import { abandonJournalRow, claimJournalRow, releaseJournalClaim } from '../../../server/db/settlement-journal.js'
import type { Database, EndpointRow, SettlementJournalRow } from '../../../server/db/tables.js'
import type { ServerDeps } from '../../../server/deps.js'
import { resolveSettlementJournal } from '../../../server/journal/recovery.js'
import { testJournalRow } from '../../helpers/journal-rows.js'
import { postgresAvailable, testDatabases } from '../../helpers/postgres.js'

const runs = postgresAvailable() || Boolean(process.env.CI)
const databases = testDatabases(runs ? 'postgres' : 'sqlite')

describe.skipIf(!runs)('claims on PostgreSQL', () => {
  test('a payment claimed by three processes at once has one winner; a released claim, an abandoned row are free again', async () => {
    const url = await databases.url()
    const processes = await Promise.all([openDatabase(url), openDatabase(url), openDatabase(url)])
    try {
      const [first] = processes
      const db = first!.db
      await addSeller(db)
      const claims = await Promise.all(
        processes.map((process, i) =>
          claimJournalRow(process.db, claimedRow(`j${i}`, 'p1', processOwnerOf(process.db).id)),
        ),
      )
      expect(claims.filter(Boolean)).toHaveLength(1)
      const held = await db.selectFrom('settlement_journal').select(['id', 'owner', 'state']).execute()
      const winner = claims.indexOf(true)
      expect(held).toEqual([{ id: `j${winner}`, owner: processOwnerOf(processes[winner]!.db).id, state: 'claimed' }])

      // The journal turns the claimed row into the settlement's: still held.
      await db.updateTable('settlement_journal').set({ state: 'settling' }).execute()
      expect(await claimJournalRow(db, claimedRow('j9', 'p1', 'proc_x'))).toBe(false)
      // Released: only a row still claimed is removed.
      await releaseJournalClaim(db, `j${winner}`)
      expect(await db.selectFrom('settlement_journal').select('id').execute()).toHaveLength(1)
      // Abandoned (its settlement failed): a retry takes it over, with its own id and owner.
      await abandonJournalRow(db, `j${winner}`)
      expect(await claimJournalRow(db, claimedRow('j9', 'p1', 'proc_x'))).toBe(true)
      expect(await db.selectFrom('settlement_journal').select(['id', 'owner', 'state']).execute()).toEqual([
        { id: 'j9', owner: 'proc_x', state: 'claimed' },
      ])
      await releaseJournalClaim(db, 'j9')
      expect(await db.selectFrom('settlement_journal').select('id').execute()).toEqual([])
    } finally {
      for (const process of processes) await process.close()
    }
  })

  test('a claim a process that died left is removed by recovery: nothing of it was sent', async () => {
    const database = await openDatabase(await databases.url())
    try {
      const { db } = database
      await addSeller(db)
      await db
        .insertInto('settlement_journal')
        .values(claimedRow('j_dead', 'p2', 'proc_died'))
        .execute()
      const deps = { db, log: () => {} } as unknown as ServerDeps
      expect(await resolveSettlementJournal(deps)).toMatchObject({ notSettled: 1, kept: 0 })
      expect(await db.selectFrom('settlement_journal').select('id').execute()).toEqual([])
    } finally {
      await database.close()
    }
  })

  test('a one-time endpoint: held by one payment, free once released, used up for good with its tombstone', async () => {
    const database = await openDatabase(await databases.url())
    try {
      const { db } = database
      const endpoint = { id: 'e1', api_id: 'a1', method: 'GET', path_pattern: '/weather/{city}' } as EndpointRow
      expect(await claimEndpoint(db, endpoint, 'proc_a', 60_000)).toBe('claimed')
      expect(await claimEndpoint(db, endpoint, 'proc_b', 60_000)).toBe('held')
      // Only its holder lets it go.
      await releaseEndpoint(db, 'e1', 'proc_b')
      expect(await claimEndpoint(db, endpoint, 'proc_b', 60_000)).toBe('held')
      await releaseEndpoint(db, 'e1', 'proc_a')
      expect(await claimEndpoint(db, endpoint, 'proc_b', 60_000)).toBe('claimed')
      // Its payment settled (the record's statement writes the tombstone).
      await db.updateTable('endpoint_claims').set({ deleted_at: sql`now()` }).where('endpoint_id', '=', 'e1').execute()
      await releaseEndpoint(db, 'e1', 'proc_b')
      expect(await claimEndpoint(db, endpoint, 'proc_a', 60_000)).toBe('used-up')
      expect(await usedUpEndpoints(db, 'a1')).toEqual([{ method: 'GET', path_pattern: '/weather/{city}' }])

      // A claim whose time ran out (its process died) is free; tombstones go after 10 minutes, claims that ran out too.
      const lapsed = { ...endpoint, id: 'e2' }
      expect(await claimEndpoint(db, lapsed, 'proc_died', -1)).toBe('claimed')
      expect(await purgeEndpointClaims(db)).toBe(1)
      expect(await claimEndpoint(db, lapsed, 'proc_died', -1)).toBe('claimed')
      expect(await claimEndpoint(db, lapsed, 'proc_b', 60_000)).toBe('claimed')
      await db
        .updateTable('endpoint_claims')
        .set({ deleted_at: sql`now() - interval '11 minutes'` })
        .where('endpoint_id', '=', 'e1')
        .execute()
      expect(await usedUpEndpoints(db, 'a1')).toEqual([])
      expect(await purgeEndpointClaims(db)).toBe(1)
      expect(await db.selectFrom('endpoint_claims').select('endpoint_id').execute()).toEqual([{ endpoint_id: 'e2' }])
    } finally {
      await database.close()
    }
  })
})

/** The seller the journal rows name (their user_id is a foreign key). */
const addSeller = (db: Kysely<Database>) =>
  insertUser(db, {
    id: 'u1',
    email: 'u1@example.test',
    password_hash: 'h',
    password_salt: 's',
    email_verified_at: null,
    created_at: new Date().toISOString(),
  })

/** A payment claimed by `owner` (the journal's row of state `claimed`). */
function claimedRow(id: string, paymentId: string, owner: string): SettlementJournalRow {
  return testJournalRow(id, { payment_id: paymentId, owner, state: 'claimed' })
}
