import { Router, type Response } from 'express'
import { z } from 'zod'
import { BadRequestError } from '../../core/errors.js'
import { sandboxEpochOf } from '../sandbox/index.js'
import {
  findOwnedApi,
  listSettlements,
  type SettlementCursor,
  type SettlementFilter,
  type SettlementRow,
} from '../db/index.js'
import { csvLine, settlementColumns } from './analytics-csv.js'
import {
  decodeCursor,
  encodeCursor,
  parseQuery,
  queryId,
  queryInt,
  queryMoment,
  queryString,
  addDays,
} from './analytics-query.js'
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
    if (csv && query.limit !== undefined)
      throw new BadRequestError('limit: not used by the CSV export (it has every matching row)')
    if (csv && query.cursor !== undefined)
      throw new BadRequestError('cursor: not used by the CSV export (it has every matching row)')
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)

    const principal = principalOf(req)
    const filter: SettlementFilter = {
      apiId: query.api_id === undefined ? undefined : (await findOwnedApi(deps.db, principal, query.api_id)).id,
      endpointId: query.endpoint_id,
      from: query.from?.iso,
      // A day `to` covers the whole day; a timestamp `to` is inclusive.
      ...(query.to?.day
        ? { toBefore: `${addDays(query.to.iso.slice(0, 10), 1)}T00:00:00.000Z` }
        : { toAtMost: query.to?.iso }),
    }
    if (
      filter.from !== undefined &&
      ((filter.toBefore !== undefined && filter.from >= filter.toBefore) ||
        (filter.toAtMost !== undefined && filter.from > filter.toAtMost))
    )
      throw new BadRequestError('from: must not be after to')

    if (csv) return exportCsv(deps, principal, filter, res)
    const limit = query.limit ?? 50
    const rows = await listSettlements(deps.db, { owner: principal, filter, cursor, limit: limit + 1 })
    const more = rows.length > limit
    const settlements = rows.slice(0, limit)
    const last = settlements.at(-1)
    res.json({
      settlements: settlements.map((row) => settlementRecord(row, currentEpoch(deps))),
      next_cursor: more && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    })
  })

  return router
}

/** The settlement as the control plane answers it (the stored row without the owner). */
/** The epoch of the running Sandbox chain; undefined without one. */
const currentEpoch = (deps: ServerDeps): string | undefined => sandboxEpochOf(deps) || undefined

/**
 * A settlement as the control plane answers it. `old_chain`: settled on an earlier Sandbox chain than the running one
 * (its transaction and balances are gone with that chain); never for production settlements.
 */
export function settlementRecord(row: SettlementRow, epoch: string | undefined) {
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
    chain_epoch: row.chain_epoch === '' ? null : row.chain_epoch,
    old_chain: row.environment === 'development' && epoch !== undefined && row.chain_epoch !== epoch,
    delivered: row.delivered !== 0,
    builder_code:
      row.builder_code === null ? null : (JSON.parse(row.builder_code) as { a?: string; w?: string; s?: string[] }),
  }
}

/** Every matching row as CSV (RFC 4180, CRLF), read in batches along the same order the pages use. */
async function exportCsv(deps: ServerDeps, principal: Principal, filter: SettlementFilter, res: Response) {
  res.status(200)
  res.setHeader('Content-Type', 'text/csv; charset=utf-8')
  res.setHeader('Content-Disposition', 'attachment; filename="settlements.csv"')
  res.write(csvLine(settlementColumns))
  let cursor: SettlementCursor | undefined
  for (;;) {
    const rows = await listSettlements(deps.db, { owner: principal, filter, cursor, limit: csvBatch })
    if (rows.length === 0) break
    const epoch = currentEpoch(deps)
    const chunk = rows
      .map((row) => csvLine(settlementColumns.map((column) => settlementRecord(row, epoch)[column])))
      .join('')
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
