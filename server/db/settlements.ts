import { sql, type Kysely } from 'kysely'
import { amountChunkSums, joinAmountChunks } from './amount-sums.js'
import { vouchersIn } from './batch-channels.js'
import type { Database, Owner, SettlementRow } from './tables.js'

/** Which of the owner's settlements a listing reads; bounds are ISO timestamps. */
export type SettlementFilter = {
  apiId?: string | undefined
  endpointId?: string | undefined
  /** created_at at or after. */
  from?: string | undefined
  /** created_at before. */
  toBefore?: string | undefined
  /** created_at at or before. */
  toAtMost?: string | undefined
}

/** Position in the newest-first order of settlements: the created_at and id of the last row read. */
export type SettlementCursor = { createdAt: string; id: string }

/** One page of an owner's settlements: at most `limit` matching `filter`, after `cursor` (from the start without). */
export type SettlementPage = {
  owner: Owner
  filter: SettlementFilter
  cursor: SettlementCursor | undefined
  limit: number
}

/** Up to `limit` of the owner's settlements matching `filter`, newest first (created_at, then id), after `cursor`. */
export function listSettlements(
  db: Kysely<Database>,
  { owner, filter, cursor, limit }: SettlementPage,
): Promise<SettlementRow[]> {
  let query = db
    .selectFrom('settlements')
    .selectAll()
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
  if (filter.apiId !== undefined) query = query.where('api_id', '=', filter.apiId)
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId)
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from)
  if (filter.toBefore !== undefined) query = query.where('created_at', '<', filter.toBefore)
  if (filter.toAtMost !== undefined) query = query.where('created_at', '<=', filter.toAtMost)
  if (cursor)
    query = query.where((eb) =>
      eb.or([
        eb('created_at', '<', cursor.createdAt),
        eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)]),
      ]),
    )
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
}

/** A span of settlement times (ISO timestamps: `from` included, `before` excluded), of all the owner's APIs or one. */
export type SettledRange = { from: string; before: string; apiId?: string | undefined }

/** Settlements and revenue of one UTC day, network and asset; the amount summed exactly. */
export type DailyRevenueRow = { day: string; network: string; asset: string; settlements: number; amount: bigint }

function settledIn(db: Kysely<Database>, owner: Owner, range: SettledRange) {
  let query = db
    .selectFrom('settlements')
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .where('created_at', '>=', range.from)
    .where('created_at', '<', range.before)
  if (range.apiId) query = query.where('api_id', '=', range.apiId)
  return query
}

/** The owner's settlements of the range per UTC day, network and asset. */
export async function dailyRevenue(
  db: Kysely<Database>,
  owner: Owner,
  range: SettledRange,
): Promise<DailyRevenueRow[]> {
  // created_at is an ISO UTC timestamp, so its first 10 characters are its UTC day.
  const rows = await settledIn(db, owner, range)
    .select([
      sql<string>`substr(created_at, 1, 10)`.as('day'),
      'network',
      'asset',
      sql<number>`count(*)`.as('settlements'),
      ...amountChunkSums(db),
    ])
    .groupBy([sql`substr(created_at, 1, 10)`, 'network', 'asset'])
    .execute()
  return rows.map((row) => ({
    day: row.day,
    network: row.network,
    asset: row.asset,
    settlements: Number(row.settlements),
    amount: joinAmountChunks(row as Record<string, unknown>),
  }))
}

/**
 * How many distinct payers (addresses in any case) paid the owner in the range: by settlements, or by vouchers of a
 * payment channel.
 */
export async function countUniquePayers(db: Kysely<Database>, owner: Owner, range: SettledRange): Promise<number> {
  const settled = settledIn(db, owner, range).select(sql<string>`lower(payer)`.as('payer'))
  const channels = vouchersIn(db, owner, range).select(sql<string>`lower(batch_channels.payer)`.as('payer'))
  const row = await db
    .selectFrom(settled.union(channels).as('payers'))
    .select(sql<number>`count(*)`.as('unique_payers'))
    .executeTakeFirstOrThrow()
  return Number(row.unique_payers)
}
