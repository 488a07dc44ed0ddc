import { sql, type Kysely } from 'kysely'
import { watchCacheVersion } from '../cache-version.js'
import { findPaymentAnswer, keepPaymentAnswer } from '../payment-answers.js'
import type { Database, SettlementJournalRow } from '../tables.js'
import { trafficUpsert, type GatewayStore, type TrafficRow } from '../gateway-store.js'

/**
 * The gateway's store on PostgreSQL, shared by any number of processes: each write is one statement (one round trip),
 * autocommitted.
 * - Its version is `cache_version`'s number, which triggers move on any change to apis, endpoints or domains, by
 *   whichever process, and notify (server/db/cache-version.ts): kept in memory, no query per request. A 404 reads it
 *   once more (`fresh`), so an API another process just created is served.
 * - A settlement's record is one statement: the insert (nothing when its transaction is recorded already), then the
 *   used-up endpoint's delete (its claim becoming its tombstone: server/db/endpoint-claims.ts) and the journal row's
 *   naming, all only when the insert happened.
 */
export function postgresGatewayStore(db: Kysely<Database>): GatewayStore {
  const journalColumns = Object.keys(journalSample) as (keyof SettlementJournalRow)[]
  const cache = watchCacheVersion(db)
  return {
    version: () => cache.current(),
    known: () => cache.known(),
    fresh: () => cache.fresh(),
    async recordSettlement(row, usedUpEndpointId, journalId) {
      const insert = db
        .insertInto('settlements')
        .values(row)
        .onConflict((conflict) => conflict.doNothing())
        .returning('id')
      if (usedUpEndpointId === undefined && journalId === undefined)
        return (await insert.executeTakeFirst()) !== undefined
      const { rows } = await sql<{ id: string }>`
        with recorded as (${insert}),
        used_up as (delete from endpoints where id = ${usedUpEndpointId ?? null} and exists (select 1 from recorded)),
        tombstone as (update endpoint_claims set deleted_at = now()
          where endpoint_id = ${usedUpEndpointId ?? null} and exists (select 1 from recorded)),
        named as (update settlement_journal set settlement_id = ${row.id}
          where id = ${journalId ?? null} and exists (select 1 from recorded))
        select id from recorded`.execute(db)
      // The used-up endpoint leaves this process's caches at once (the others' at its notification).
      if (rows.length > 0 && usedUpEndpointId !== undefined) cache.bump()
      return rows.length > 0
    },
    async openJournal(row) {
      // A row of the same payment left by an earlier try is replaced (SQLite's `replace into`).
      await db
        .insertInto('settlement_journal')
        .values(row)
        .onConflict((conflict) =>
          conflict
            .column('payment_id')
            .doUpdateSet(Object.fromEntries(journalColumns.map((column) => [column, sql.ref(`excluded.${column}`)]))),
        )
        .execute()
    },
    async closeJournal(journalId, settlementId, delivered = true) {
      if (settlementId === undefined || delivered) {
        await db.deleteFrom('settlement_journal').where('id', '=', journalId).execute()
        return
      }
      await sql`
        with closed as (delete from settlement_journal where id = ${journalId})
        update settlements set delivered = 0 where id = ${settlementId}`.execute(db)
    },
    async addTraffic(rows) {
      // One statement may not add to a row twice: rows of the same API and day are added up first.
      const merged = new Map<string, TrafficRow>()
      for (const row of rows) {
        const key = `${row.api_id}\n${row.day}`
        const sum = merged.get(key)
        if (!sum) merged.set(key, { ...row })
        else {
          sum.requests += row.requests
          sum.payment_required += row.payment_required
          sum.paid_requests += row.paid_requests
        }
      }
      if (merged.size > 0) await trafficUpsert(db, [...merged.values()]).execute()
    },
    findPaymentAnswer: (key, since) => findPaymentAnswer(db, key, since),
    keepPaymentAnswer: (row, bounds) => keepPaymentAnswer(db, row, bounds),
    // The version moves only on writes to apis, endpoints and domains (triggers): the gateway's own rows leave it.
    own: (write) => write(),
    close() {
      void cache.close()
    },
  }
}

/** The journal's columns, all replaced when a row of the same payment is written again. */
const journalSample: Record<keyof SettlementJournalRow, true> = {
  id: true,
  payment_id: true,
  api_id: true,
  endpoint_id: true,
  ephemeral: true,
  user_id: true,
  environment: true,
  network: true,
  asset: true,
  amount: true,
  payer: true,
  pay_to: true,
  transfer_method: true,
  nonce: true,
  valid_before: true,
  method: true,
  path: true,
  chain_epoch: true,
  settlement_id: true,
  created_at: true,
  owner: true,
  from_block: true,
  state: true,
  channel_action: true,
}
