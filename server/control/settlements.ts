import { Router, type Response } from 'express'
import { z } from 'zod'
import { BadRequestError } from '../../core/errors.js'
import type { SettlementRow } from '../db/tables.js'
import { csvLine, settlementColumns } from './analytics-csv.js'
import { decodeCursor, encodeCursor, parseQuery, queryId, queryInt, queryMoment, queryString, addDays, type Cursor } from './analytics-query.js'
import { findOwnedApi } from './api-service.js'
import { guard, principalOf, type Principal } from './context.js'
import type { ServerDeps } from '../deps.js'

const listQuery = z.strictObject({
  api_id: queryId().optional(),
  endpoint_id: queryId().optional(),
  from: queryMoment().optional(),
  to: queryMoment().optional(),
  limit: queryInt(1, 200).optional(),
  cursor: queryString().optional(),
  format: queryString('must be "json" or "csv"')
    .pipe(z.enum(['json', 'csv'], { error: 'must be "json" or "csv"' }))
    .optional(),
})

type Filter = { apiId?: string | undefined; endpointId?: string | undefined; from?: string | undefined; toBefore?: string | undefined; toAtMost?: string | undefined }

/** Rows a CSV export reads at a time: the database is never held for long, however many rows match. */
const csvBatch = 1000

/**
 * GET /settlements: the caller's settlements in the caller's environment, newest first, with cursor pagination;
 * `format=csv` (or `Accept: text/csv`) exports every matching row as CSV instead.
 */
export function createSettlementRoutes(deps: ServerDeps): Router {
  const router = Router()

  router.get('/settlements', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const query = parseQuery(listQuery, req.query)
    const csv = query.format ? query.format === 'csv' : req.accepts(['application/json', 'text/csv']) === 'text/csv'
    if (csv && query.limit !== undefined) throw new BadRequestError('limit: not used by the CSV export (it has every matching row)')
    if (csv && query.cursor !== undefined) throw new BadRequestError('cursor: not used by the CSV export (it has every matching row)')
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)

    const principal = principalOf(req)
    const filter: Filter = {
      apiId: query.api_id === undefined ? undefined : (await findOwnedApi(deps, principal, query.api_id)).id,
      endpointId: query.endpoint_id,
      from: query.from?.iso,
      // A day `to` covers the whole day; a timestamp `to` is inclusive.
      ...(query.to?.day ? { toBefore: `${addDays(query.to.iso.slice(0, 10), 1)}T00:00:00.000Z` } : { toAtMost: query.to?.iso }),
    }
    if (filter.from !== undefined && ((filter.toBefore !== undefined && filter.from >= filter.toBefore) || (filter.toAtMost !== undefined && filter.from > filter.toAtMost)))
      throw new BadRequestError('from: must not be after to')

    if (csv) return exportCsv(deps, principal, filter, res)
    const limit = query.limit ?? 50
    const rows = await page(deps, principal, filter, cursor, limit + 1)
    const more = rows.length > limit
    const settlements = rows.slice(0, limit)
    const last = settlements.at(-1)
    res.json({
      settlements: settlements.map(settlementRecord),
      next_cursor: more && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    })
  })

  return router
}

/** The settlement as the control plane answers it (the stored row without the owner). */
export function settlementRecord(row: SettlementRow) {
  return {
    id: row.id,
    api_id: row.api_id,
    endpoint_id: row.endpoint_id,
    environment: row.environment,
    network: row.network,
    asset: row.asset,
    amount: row.amount,
    payer: row.payer,
    pay_to: row.pay_to,
    transaction: row.transaction,
    method: row.method,
    path: row.path,
    created_at: row.created_at,
  }
}

/** Up to `limit` of the caller's settlements matching `filter`, newest first (created_at, then id), after `cursor`. */
function page(deps: ServerDeps, principal: Principal, filter: Filter, cursor: Cursor | undefined, limit: number): Promise<SettlementRow[]> {
  let query = deps.db
    .selectFrom('settlements')
    .selectAll()
    .where('user_id', '=', principal.user.id)
    .where('environment', '=', principal.environment)
  if (filter.apiId !== undefined) query = query.where('api_id', '=', filter.apiId)
  if (filter.endpointId !== undefined) query = query.where('endpoint_id', '=', filter.endpointId)
  if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from)
  if (filter.toBefore !== undefined) query = query.where('created_at', '<', filter.toBefore)
  if (filter.toAtMost !== undefined) query = query.where('created_at', '<=', filter.toAtMost)
  if (cursor)
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', cursor.createdAt), eb.and([eb('created_at', '=', cursor.createdAt), eb('id', '<', cursor.id)])]),
    )
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute()
}

/** Every matching row as CSV (RFC 4180, CRLF), read in batches along the same order the pages use. */
async function exportCsv(deps: ServerDeps, principal: Principal, filter: Filter, res: Response) {
  res.status(200)
  res.setHeader('Content-Type', 'text/csv; charset=utf-8')
  res.setHeader('Content-Disposition', 'attachment; filename="settlements.csv"')
  res.write(csvLine(settlementColumns))
  let cursor: Cursor | undefined
  for (;;) {
    const rows = await page(deps, principal, filter, cursor, csvBatch)
    if (rows.length === 0) break
    const chunk = rows.map((row) => csvLine(settlementColumns.map((column) => settlementRecord(row)[column]))).join('')
    if (!res.write(chunk)) await waitForDrain(res)
    if (res.destroyed) return
    const last = rows.at(-1)!
    cursor = { createdAt: last.created_at, id: last.id }
    if (rows.length < csvBatch) break
  }
  res.end()
}

function waitForDrain(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}
