import { sql, type Kysely } from 'kysely'
import type { PaymentAnswerBounds, PaymentAnswerKey } from './payment-answers.js'
import type { ApiDailyStatsTable } from './api-tables.js'
import type { PaymentAnswersTable } from './payment-tables.js'
import type { Database, SettlementJournalRow, SettlementRow } from './tables.js'

/** One row of `api_daily_stats` to add to (the counts are added, not set). */
export type TrafficRow = ApiDailyStatsTable

export type GatewayStore = {
  /**
   * A label of the database's state as far as the gateway's caches (APIs, domains, endpoints) are concerned: it
   * changes whenever anything but the gateway's own bookkeeping was written since. Read it before the data it labels.
   */
  version(): number | Promise<number>
  /**
   * The version when it is known without a query, else undefined, and nothing read or changed: what the unpaid 402's
   * path before express asks (server/gateway/index.ts), which leaves the request to express when it is undefined.
   * Without it, {@link version} is asked and only a number is used.
   */
  known?(): number | undefined
  /**
   * The version read from the database now, where {@link version} may lag behind another process's write
   * (PostgreSQL): the gateway asks before it answers 404, so what another process just created is served.
   */
  fresh?(): Promise<number>
  /**
   * Records a settlement, deleting the ephemeral endpoint it used up and naming it in its journal row (`journalId`),
   * in one transaction; false when the transaction is recorded already.
   */
  recordSettlement(row: SettlementRow, usedUpEndpointId: string | undefined, journalId?: string): Promise<boolean>
  /** Writes a settlement's journal row before the settlement is sent; it replaces a stale row of the same payment. */
  openJournal(row: SettlementJournalRow): Promise<void>
  /**
   * Ends a journal row: the settlement is done (`delivered` true: its answer was written) or was not made (no
   * `settlementId`). With a `settlementId` and `delivered` false, the settlement is marked as charged without an answer.
   */
  closeJournal(journalId: string, settlementId?: string, delivered?: boolean): Promise<void>
  /** Adds traffic counts to their API and day rows. */
  addTraffic(rows: TrafficRow[]): Promise<void>
  /** The kept answer of a payment-identifier id younger than `since` (server/db/payment-answers.ts). */
  findPaymentAnswer(key: PaymentAnswerKey, since: string): Promise<PaymentAnswersTable | undefined>
  /** Keeps a payment-identifier answer and trims the kept answers to `bounds`. */
  keepPaymentAnswer(row: PaymentAnswersTable, bounds: PaymentAnswerBounds): Promise<void>
  /**
   * Runs `write`, synchronous statements of the gateway's own bookkeeping on svc's connection (payment channels:
   * server/channels/storage.ts), so that the rows they change do not move the version.
   */
  own<T>(write: () => T): T
  close(): void
}

/** Adds rows' counts to theirs (the existing row's columns named with the table: PostgreSQL finds `requests` ambiguous). */
export function trafficUpsert(db: Kysely<Database>, rows: TrafficRow[]) {
  return db
    .insertInto('api_daily_stats')
    .values(rows)
    .onConflict((conflict) =>
      conflict.columns(['api_id', 'day']).doUpdateSet({
        requests: sql`api_daily_stats.requests + excluded.requests`,
        payment_required: sql`api_daily_stats.payment_required + excluded.payment_required`,
        paid_requests: sql`api_daily_stats.paid_requests + excluded.paid_requests`,
      }),
    )
}
