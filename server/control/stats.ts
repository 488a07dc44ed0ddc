import { Router } from 'express'
import { sql } from 'kysely'
import { z } from 'zod'
import {
  addDays,
  amountChunkSums,
  joinAmountChunks,
  parseQuery,
  queryId,
  queryInt,
  RevenueTally,
  utcDay,
  type RevenueLine,
} from './analytics-query.js'
import { findOwnedApi } from './api-service.js'
import { guard, principalOf, type Principal } from './context.js'
import type { ServerDeps } from '../deps.js'

const overviewQuery = z.strictObject({
  days: queryInt(1, 365).optional(),
  api_id: queryId().optional(),
})

type Counters = { requests: number; payment_required: number; paid_requests: number }
type Day = Counters & { day: string; settlements: number; revenue: RevenueLine[] }

/**
 * GET /stats/overview: the caller's gateway traffic and revenue of the last `days` UTC days (today included), in
 * the caller's environment, for all their APIs or one (`api_id`). Traffic comes from api_daily_stats, revenue and
 * payers from settlements; amounts are summed exactly (BigInt), per network and asset.
 */
export function createStatsRoutes(deps: ServerDeps): Router {
  const router = Router()

  router.get('/stats/overview', guard({ scopes: ['stats:read'] }), async (req, res) => {
    const query = parseQuery(overviewQuery, req.query)
    const principal = principalOf(req)
    const apiId = query.api_id === undefined ? undefined : (await findOwnedApi(deps, principal, query.api_id)).id
    const days = query.days ?? 7
    const to = utcDay(new Date())
    const from = addDays(to, -(days - 1))
    res.json({ days, from, to, api_id: apiId ?? null, ...(await overview(deps, principal, { from, to, apiId })) })
  })

  return router
}

async function overview(deps: ServerDeps, principal: Principal, range: { from: string; to: string; apiId: string | undefined }) {
  const { user, environment } = principal
  const { from, to, apiId } = range

  let traffic = deps.db
    .selectFrom('api_daily_stats')
    .select((eb) => [
      'day',
      eb.fn.sum<number>('requests').as('requests'),
      eb.fn.sum<number>('payment_required').as('payment_required'),
      eb.fn.sum<number>('paid_requests').as('paid_requests'),
    ])
    .where('user_id', '=', user.id)
    .where('environment', '=', environment)
    .where('day', '>=', from)
    .where('day', '<=', to)
    .groupBy('day')
  if (apiId) traffic = traffic.where('api_id', '=', apiId)

  // Settlements of the range: created_at is an ISO UTC timestamp, so its first 10 characters are its UTC day.
  let settled = deps.db
    .selectFrom('settlements')
    .where('user_id', '=', user.id)
    .where('environment', '=', environment)
    .where('created_at', '>=', `${from}T00:00:00.000Z`)
    .where('created_at', '<', `${addDays(to, 1)}T00:00:00.000Z`)
  if (apiId) settled = settled.where('api_id', '=', apiId)

  const [trafficRows, revenueRows, payers] = await Promise.all([
    traffic.execute(),
    settled
      .select([sql<string>`substr(created_at, 1, 10)`.as('day'), 'network', 'asset', sql<number>`count(*)`.as('settlements'), ...amountChunkSums()])
      .groupBy([sql`substr(created_at, 1, 10)`, 'network', 'asset'])
      .execute(),
    settled.select(sql<number>`count(distinct lower(payer))`.as('unique_payers')).executeTakeFirstOrThrow(),
  ])

  const daily = new Map<string, Day & { tally: RevenueTally }>()
  for (let day = from; day <= to; day = addDays(day, 1))
    daily.set(day, { day, requests: 0, payment_required: 0, paid_requests: 0, settlements: 0, revenue: [], tally: new RevenueTally() })

  const totals = { requests: 0, payment_required: 0, paid_requests: 0, settlements: 0, unique_payers: Number(payers.unique_payers) }
  for (const row of trafficRows) {
    const entry = daily.get(row.day)
    if (!entry) continue
    for (const field of ['requests', 'payment_required', 'paid_requests'] as const) {
      entry[field] = Number(row[field] ?? 0)
      totals[field] += entry[field]
    }
  }

  const revenue = new RevenueTally()
  for (const row of revenueRows) {
    const entry = daily.get(row.day)
    if (!entry) continue
    const amount = joinAmountChunks(row as Record<string, unknown>)
    entry.settlements += Number(row.settlements)
    entry.tally.add(row.network, row.asset, amount)
    totals.settlements += Number(row.settlements)
    revenue.add(row.network, row.asset, amount)
  }

  return {
    totals,
    revenue: revenue.lines(true),
    daily: [...daily.values()].map(({ tally, ...day }) => ({ ...day, revenue: tally.lines(false) })),
  }
}
