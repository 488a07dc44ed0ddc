import { Router, type Response } from 'express'
import { z } from 'zod'
import { BadRequestError } from '../../core/errors.js'
import { sandboxEpochOf } from '../sandbox/index.js'
import {
  type EscrowPaymentRow,
  escrowDb,
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
    const escrows = await escrowsOf(deps, settlements)
    res.json({
      settlements: settlements.map((row) => settlementRecord(row, currentEpoch(deps), escrows.get(row.id))),
      next_cursor: more && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
    })
  })

  return router
}

/** The epoch of the running Sandbox chain; undefined without one. */
const currentEpoch = (deps: ServerDeps): string | undefined => sandboxEpochOf(deps) || undefined

/**
 * A settlement as the control plane answers it. `old_chain`: settled on an earlier Sandbox chain than the running one
 * (its transaction and balances are gone with that chain); never for production settlements.
 */
export function settlementRecord(row: SettlementRow, epoch: string | undefined, escrow?: EscrowPaymentRow) {
  const record = {
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
  // An escrow payment's settlement (x402 auth-capture) carries its escrow part; other schemes' records are unchanged.
  return escrow ? { ...record, escrow: escrowSummary(escrow) } : record
}

/** A settlement's escrow part: its payment's state and amounts (the settlement's amount is captured − refunded). */
export const escrowSummary = (payment: EscrowPaymentRow) => ({
  id: payment.id,
  state: payment.state,
  authorized: payment.authorized,
  captured: payment.captured,
  voided: payment.voided,
  refunded: payment.refunded,
  reclaimed: payment.reclaimed,
  capture_deadline: Number(payment.capture_deadline),
  refund_deadline: Number(payment.refund_deadline),
})

/** The escrow payments of those settlements that have one (settlements.escrow_id), by settlement id: one query, none without. */
async function escrowsOf(deps: ServerDeps, rows: readonly SettlementRow[]): Promise<Map<string, EscrowPaymentRow>> {
  const ids = rows.flatMap((row) => {
    const id = (row as SettlementRow & { escrow_id?: string | null }).escrow_id
    return id ? [id] : []
  })
  if (ids.length === 0) return new Map()
  const payments = await escrowDb(deps.db).selectFrom('escrow_payments').selectAll().where('id', 'in', ids).execute()
  const byId = new Map(payments.map((payment) => [payment.id, payment]))
  const out = new Map<string, EscrowPaymentRow>()
  for (const row of rows) {
    const id = (row as SettlementRow & { escrow_id?: string | null }).escrow_id
    const payment = id ? byId.get(id) : undefined
    if (payment) out.set(row.id, payment)
  }
  return out
}

/** A settlement's CSV fields, in {@link settlementColumns}' order (the escrow ones empty for other schemes). */
function csvRecord(row: SettlementRow, epoch: string | undefined, escrow: EscrowPaymentRow | undefined) {
  const record = settlementRecord(row, epoch)
  const extra = {
    escrow_state: escrow?.state,
    authorized: escrow?.authorized,
    captured: escrow?.captured,
    refunded: escrow?.refunded,
  }
  return settlementColumns.map((column) =>
    column in extra ? extra[column as keyof typeof extra] : record[column as keyof typeof record],
  ) as (string | number | boolean | null | undefined)[]
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
    const escrows = await escrowsOf(deps, rows)
    const chunk = rows.map((row) => csvLine(csvRecord(row, epoch, escrows.get(row.id)))).join('')
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
