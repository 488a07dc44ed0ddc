import { Router } from 'express'
import { z } from 'zod'
import { addDays, parseQuery, queryId, queryInt, RevenueTally, utcDay, type RevenueLine } from './analytics-query.js'
import { countUniquePayers, dailyRevenue, dailyTraffic, dailyVoucherRevenue, findOwnedApi } from '../db/index.js'
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
 * the caller's environment, for all their APIs or one (`api_id`). Traffic comes from api_daily_stats (voucher-paid
 * requests count as paid), revenue and payers from settlements and from the vouchers payment channels charged (channel
 * money is earned per request, not per transaction); amounts are summed exactly (BigInt), per network and asset.
 */
export function createStatsRoutes(deps: ServerDeps): Router {
  const router = Router()

  router.get('/stats/overview', guard({ scopes: ['stats:read'] }), async (req, res) => {
    const query = parseQuery(overviewQuery, req.query)
    const principal = principalOf(req)
    const apiId = query.api_id === undefined ? undefined : (await findOwnedApi(deps.db, principal, query.api_id)).id
    const days = query.days ?? 7
    const to = utcDay(new Date())
    const from = addDays(to, -(days - 1))
    res.json({ days, from, to, api_id: apiId ?? null, ...(await overview(deps, principal, { from, to, apiId })) })
  })

  return router
}

async function overview(
  deps: ServerDeps,
  principal: Principal,
  range: { from: string; to: string; apiId: string | undefined },
) {
  const { from, to, apiId } = range
  const settled = { from: `${from}T00:00:00.000Z`, before: `${addDays(to, 1)}T00:00:00.000Z`, apiId }
  const [trafficRows, revenueRows, voucherRows, uniquePayers] = await Promise.all([
    dailyTraffic(deps.db, principal, range),
    dailyRevenue(deps.db, principal, settled),
    dailyVoucherRevenue(deps.db, principal, settled),
    countUniquePayers(deps.db, principal, settled),
  ])

  const daily = new Map<string, Day & { tally: RevenueTally }>()
  for (let day = from; day <= to; day = addDays(day, 1))
    daily.set(day, {
      day,
      requests: 0,
      payment_required: 0,
      paid_requests: 0,
      settlements: 0,
      revenue: [],
      tally: new RevenueTally(),
    })

  const totals = { requests: 0, payment_required: 0, paid_requests: 0, settlements: 0, unique_payers: uniquePayers }
  for (const row of trafficRows) {
    const entry = daily.get(row.day)
    if (!entry) continue
    for (const field of ['requests', 'payment_required', 'paid_requests'] as const) {
      entry[field] = row[field]
      totals[field] += entry[field]
    }
  }

  const revenue = new RevenueTally()
  for (const row of revenueRows) {
    const entry = daily.get(row.day)
    if (!entry) continue
    entry.settlements += row.settlements
    entry.tally.add(row.network, row.asset, row.amount)
    totals.settlements += row.settlements
    revenue.add(row.network, row.asset, row.amount)
  }
  // Channel money: what vouchers charged (no settlement per request).
  for (const row of voucherRows) {
    daily.get(row.day)?.tally.add(row.network, row.asset, row.amount)
    if (daily.has(row.day)) revenue.add(row.network, row.asset, row.amount)
  }

  return {
    totals,
    revenue: revenue.lines(true),
    daily: [...daily.values()].map(({ tally, ...day }) => ({ ...day, revenue: tally.lines(false) })),
  }
}
