import type { Kysely } from 'kysely'
import type { Database, Owner } from './tables.js'

/** A span of UTC days (YYYY-MM-DD, both included), of all the owner's APIs or one. */
export type DayRange = { from: string; to: string; apiId?: string | undefined }

export type DailyTrafficRow = { day: string; requests: number; payment_required: number; paid_requests: number }

/** The owner's gateway traffic per UTC day of the range (days without traffic have no row). */
export async function dailyTraffic(db: Kysely<Database>, owner: Owner, range: DayRange): Promise<DailyTrafficRow[]> {
  let query = db
    .selectFrom('api_daily_stats')
    .select((eb) => [
      'day',
      eb.fn.sum<number>('requests').as('requests'),
      eb.fn.sum<number>('payment_required').as('payment_required'),
      eb.fn.sum<number>('paid_requests').as('paid_requests'),
    ])
    .where('user_id', '=', owner.user.id)
    .where('environment', '=', owner.environment)
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy('day')
  if (range.apiId) query = query.where('api_id', '=', range.apiId)
  const rows = await query.execute()
  return rows.map((row) => ({
    day: row.day,
    requests: Number(row.requests ?? 0),
    payment_required: Number(row.payment_required ?? 0),
    paid_requests: Number(row.paid_requests ?? 0),
  }))
}
