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
  const [trafficRows, revenueRows, voucherRows, uniquePayers, escrow] = await Promise.all([
    dailyTraffic(deps.db, principal, range),
    dailyRevenue(deps.db, principal, settled),
    dailyVoucherRevenue(deps.db, principal, settled),
    countUniquePayers(deps.db, principal, settled),
    escrowMoney(deps, principal, settled),
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
    ...(escrow.length > 0 && { escrow }),
    daily: [...daily.values()].map(({ tally, ...day }) => ({ ...day, revenue: tally.lines(false) })),
  }
}

/**
 * Escrow money (x402 auth-capture) moved in the range, per network and asset, summed exactly from the escrow
 * transactions of the caller's payments: `held` is what was authorized and not captured, voided or reclaimed in it.
 */
async function escrowMoney(
  deps: ServerDeps,
  principal: Principal,
  range: { from: string; before: string; apiId: string | undefined },
) {
  let query = deps.db
    .selectFrom('escrow_transactions as t')
    .innerJoin('escrow_payments as p', 'p.id', 't.escrow_payment_id')
    .select(['p.network', 'p.asset', 't.kind', 't.amount'])
    .where('p.user_id', '=', principal.user.id)
    .where('p.environment', '=', principal.environment)
    .where('t.created_at', '>=', range.from)
    .where('t.created_at', '<', range.before)
  if (range.apiId !== undefined) query = query.where('p.api_id', '=', range.apiId)
  const rows = await query.execute()
  type Line = Record<'authorized' | 'fromHolds' | 'captured' | 'voided' | 'refunded' | 'reclaimed', bigint>
  const lines = new Map<string, Line>()
  for (const row of rows) {
    const key = `${row.network} ${row.asset}`
    let line = lines.get(key)
    if (!line)
      lines.set(key, (line = { authorized: 0n, fromHolds: 0n, captured: 0n, voided: 0n, refunded: 0n, reclaimed: 0n }))
    const amount = BigInt(row.amount)
    if (row.kind === 'authorize') line.authorized += amount
    else if (row.kind === 'charge') line.captured += amount
    else if (row.kind === 'capture') {
      line.captured += amount
      line.fromHolds += amount
    } else if (row.kind === 'void') line.voided += amount
    else if (row.kind === 'refund') line.refunded += amount
    else if (row.kind === 'reclaim') line.reclaimed += amount
  }
  return [...lines.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([key, line]) => {
      const [network, asset] = key.split(' ') as [string, string]
      const held = line.authorized - line.fromHolds - line.voided - line.reclaimed
      return {
        network,
        asset,
        held: (held > 0n ? held : 0n).toString(),
        captured: line.captured.toString(),
        voided: line.voided.toString(),
        refunded: line.refunded.toString(),
        reclaimed: line.reclaimed.toString(),
      }
    })
}
