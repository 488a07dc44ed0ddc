import type SQLite from 'better-sqlite3'
import { CompiledQuery, sql, type Kysely } from 'kysely'
import { connectionOf } from '../database.js'
import { isUniqueViolation } from './errors.js'
import { findPaymentAnswer, keepPaymentAnswer } from '../payment-answers.js'
import type { Database, SettlementJournalRow, SettlementRow } from '../tables.js'
import { trafficUpsert, type GatewayStore, type TrafficRow } from '../gateway-store.js'
import { preparePaymentAnswers } from './payment-answer-statements.js'
import { registerOwnWrites } from '../own-write.js'

/**
 * The gateway's access to a SQLite database, built for its hot path (server/db/open-gateway-store.ts opens it). On a
 * database file it runs on svc's one SQLite connection itself (server/db/database.ts holds the file on one exclusive
 * connection: issue 21 item 4):
 * - Its version is `total_changes()` less the rows its own statements changed: it moves whenever anyone else (the
 *   control plane, imports, purges through Kysely) writes, never for the gateway's own bookkeeping (settlements,
 *   traffic), so those do not empty the caches. Reading it costs microseconds and no query, so every request can
 *   check that its cached APIs and endpoints are current.
 * - The bookkeeping (settlements, their journal, traffic, payment-identifier answers) runs as prepared statements
 *   (compiled once by Kysely), synchronously. While Kysely is inside a
 *   transaction on the connection, a write goes through Kysely instead (it waits for that transaction's end).
 * An in-memory database (tests, `:memory:`) or a connection svc did not open goes through Kysely, with
 * `total_changes()` of the one connection as the label. On PostgreSQL, see server/db/postgres/gateway-store.ts.
 */
export async function sqliteGatewayStore(db: Kysely<Database>): Promise<GatewayStore> {
  const fallback = kyselyStore(db)
  const main = (await sql<{ name: string; file: string }>`pragma database_list`.execute(db)).rows.find(
    (row) => row.name === 'main',
  )
  const connection = connectionOf(db)
  if (!main?.file || !connection) return fallback
  const totalChanges = connection.prepare('select total_changes()').pluck()
  const insertSettlement = prepared(
    connection,
    db.insertInto('settlements').values(sampleSettlement).compile(),
    sampleSettlement,
  )
  const deleteEndpoint = connection.prepare(db.deleteFrom('endpoints').where('id', '=', '').compile().sql)
  const addTraffic = prepared(connection, trafficUpsert(db, [sampleTraffic]).compile(), sampleTraffic)
  const insertJournal = prepared(
    connection,
    db.replaceInto('settlement_journal').values(sampleJournal).compile(),
    sampleJournal,
  )
  const nameSettlement = connection.prepare(
    db.updateTable('settlement_journal').set({ settlement_id: '' }).where('id', '=', '').compile().sql,
  )
  const deleteJournal = connection.prepare(db.deleteFrom('settlement_journal').where('id', '=', '').compile().sql)
  const markUndelivered = connection.prepare(
    db.updateTable('settlements').set({ delivered: 0 }).where('id', '=', '').compile().sql,
  )
  const answers = preparePaymentAnswers(connection, db)
  /** Rows the gateway's own statements changed: taken off `total_changes()`. */
  let own = 0
  const record = connection.transaction(
    (row: SettlementRow, endpointId: string | undefined, journalId: string | undefined) => {
      own += insertSettlement(row)
      if (endpointId !== undefined) own += deleteEndpoint.run(endpointId).changes
      if (journalId !== undefined) own += nameSettlement.run(row.id, journalId).changes
    },
  )
  const closeUndelivered = connection.transaction((journalId: string, settlementId: string) => {
    own += markUndelivered.run(0, settlementId).changes
    own += deleteJournal.run(journalId).changes
  })
  /** True while Kysely holds a transaction open on the connection: a statement run now would land inside it. */
  const busy = () => connection.inTransaction

  let seen = (totalChanges.get() as number) - own
  let epoch = 0

  const store: GatewayStore = {
    version() {
      const current = (totalChanges.get() as number) - own
      if (current !== seen) {
        seen = current
        epoch++
      }
      return epoch
    },
    async recordSettlement(row, usedUpEndpointId, journalId) {
      if (busy()) return fallback.recordSettlement(row, usedUpEndpointId, journalId)
      try {
        if (usedUpEndpointId === undefined && journalId === undefined) own += insertSettlement(row)
        else record.immediate(row, usedUpEndpointId, journalId)
        // Its own write does not move the version: the deleted endpoint must leave the caches all the same.
        if (usedUpEndpointId !== undefined) epoch++
        return true
      } catch (error) {
        if (isUniqueViolation(error)) return false
        throw error
      }
    },
    async openJournal(row) {
      if (busy()) return fallback.openJournal(row)
      own += insertJournal(row)
    },
    async closeJournal(journalId, settlementId, delivered = true) {
      if (busy()) return fallback.closeJournal(journalId, settlementId, delivered)
      if (settlementId !== undefined && !delivered) closeUndelivered.immediate(journalId, settlementId)
      else own += deleteJournal.run(journalId).changes
    },
    async addTraffic(rows) {
      for (const [index, row] of rows.entries()) {
        if (busy()) return fallback.addTraffic(rows.slice(index))
        own += addTraffic(row)
      }
    },
    async findPaymentAnswer(key, since) {
      if (busy()) return fallback.findPaymentAnswer(key, since)
      return answers.find(key, since)
    },
    async keepPaymentAnswer(row, bounds) {
      if (busy()) return fallback.keepPaymentAnswer(row, bounds)
      own += answers.keep(row, bounds)
    },
    own(write) {
      const before = totalChanges.get() as number
      try {
        return write()
      } finally {
        own += (totalChanges.get() as number) - before
      }
    },
    close() {},
  }
  // The bazaar catalog's writes (server/db/bazaar-resources.ts) go through `own` too: listings are no APIs or endpoints.
  registerOwnWrites(connection, store.own)
  return store
}

/** Everything through the one Kysely connection; `total_changes()` (any row written, by anyone) is the label. */
function kyselyStore(db: Kysely<Database>): GatewayStore {
  const totalChanges = CompiledQuery.raw('select total_changes() as v') as CompiledQuery<{ v: number }>
  return {
    version: async () => (await db.executeQuery(totalChanges)).rows[0]!.v,
    known: () => undefined,
    async recordSettlement(row, usedUpEndpointId, journalId) {
      try {
        if (usedUpEndpointId === undefined && journalId === undefined)
          await db.insertInto('settlements').values(row).execute()
        else
          await db.transaction().execute(async (trx) => {
            await trx.insertInto('settlements').values(row).execute()
            if (usedUpEndpointId !== undefined)
              await trx.deleteFrom('endpoints').where('id', '=', usedUpEndpointId).execute()
            if (journalId !== undefined)
              await trx
                .updateTable('settlement_journal')
                .set({ settlement_id: row.id })
                .where('id', '=', journalId)
                .execute()
          })
        return true
      } catch (error) {
        if (isUniqueViolation(error)) return false
        throw error
      }
    },
    async openJournal(row) {
      await db.replaceInto('settlement_journal').values(row).execute()
    },
    async closeJournal(journalId, settlementId, delivered = true) {
      if (settlementId === undefined || delivered) {
        await db.deleteFrom('settlement_journal').where('id', '=', journalId).execute()
        return
      }
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('settlements').set({ delivered: 0 }).where('id', '=', settlementId).execute()
        await trx.deleteFrom('settlement_journal').where('id', '=', journalId).execute()
      })
    },
    async addTraffic(rows) {
      for (const row of rows) await trafficUpsert(db, [row]).execute()
    },
    findPaymentAnswer: (key, since) => findPaymentAnswer(db, key, since),
    keepPaymentAnswer: (row, bounds) => keepPaymentAnswer(db, row, bounds),
    own: (write) => write(),
    close() {},
  }
}

/**
 * The statement Kysely compiles for a sample row, prepared on `connection`. It runs with rows of the same type, their
 * values bound in the sample's key order (the order Kysely wrote the columns and their placeholders in), and answers
 * the rows it changed.
 */
function prepared<Row extends object>(
  connection: SQLite.Database,
  compiled: CompiledQuery,
  sample: Row,
): (row: Row) => number {
  const statement = connection.prepare(compiled.sql)
  const keys = Object.keys(sample) as (keyof Row)[]
  if (keys.length !== compiled.parameters.length) throw new Error(`${compiled.sql}: expected ${keys.length} parameters`)
  return (row) => statement.run(...keys.map((key) => row[key])).changes
}

const sampleSettlement: SettlementRow = {
  id: '',
  api_id: '',
  endpoint_id: null,
  user_id: '',
  environment: 'development',
  network: '',
  asset: '',
  amount: '',
  payer: '',
  pay_to: '',
  transaction: '',
  method: '',
  path: '',
  created_at: '',
  chain_epoch: '',
  delivered: 1,
  builder_code: null,
}

const sampleJournal: SettlementJournalRow = {
  id: '',
  payment_id: '',
  api_id: '',
  endpoint_id: '',
  ephemeral: 0,
  user_id: '',
  environment: 'development',
  network: '',
  asset: '',
  amount: '',
  payer: '',
  pay_to: '',
  transfer_method: null,
  nonce: null,
  valid_before: null,
  method: '',
  path: '',
  chain_epoch: '',
  settlement_id: null,
  created_at: '',
  owner: null,
  from_block: null,
  state: 'settling',
  channel_action: null,
}

const sampleTraffic: TrafficRow = {
  api_id: '',
  user_id: '',
  environment: 'development',
  day: '',
  requests: 0,
  payment_required: 0,
  paid_requests: 0,
}
