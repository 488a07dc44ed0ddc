import { Router } from 'express'
import { z } from 'zod'
import { NotFoundError } from '../../core/errors.js'
import {
  type BatchChannelRow,
  type BatchTransactionRow,
  type BatchVoucherRow,
  channelTransactions,
  channelVouchers,
  findChannel,
  findOwnedApi,
  listChannels,
} from '../db/index.js'
import type { ServerDeps } from '../deps.js'
import { csvLine } from './analytics-csv.js'
import { parseQuery, queryId, queryInt, queryString } from './analytics-query.js'
import { guard, principalOf } from './context.js'

const states = ['open', 'withdrawing', 'closed'] as const
const listQuery = z.strictObject({
  api_id: queryId().optional(),
  state: queryString(`must be one of ${states.join(', ')}`)
    .pipe(z.enum(states, { error: `must be one of ${states.join(', ')}` }))
    .optional(),
  limit: queryInt(1, 1000).optional(),
  format: queryString('must be "json" or "csv"')
    .pipe(z.enum(['json', 'csv'], { error: 'must be "json" or "csv"' }))
    .optional(),
})
const showQuery = z.strictObject({ vouchers: queryInt(0, 1000).optional() })

/** The columns of the channels CSV, in order: the fields of a channel record. */
export const channelColumns = [
  'channel_id',
  'api_id',
  'environment',
  'network',
  'asset',
  'payer',
  'pay_to',
  'withdraw_delay',
  'deposited',
  'balance',
  'spent',
  'claimed',
  'settled',
  'refunded',
  'withdrawn',
  'vouchers',
  'state',
  'chain_epoch',
  'old_chain',
  'created_at',
  'updated_at',
] as const

/**
 * The seller's payment channels (x402 batch-settlement), scope settlements:read: GET /channels (newest first;
 * `format=csv` or `Accept: text/csv` for CSV) and GET /channels/{channelId} (the channel, the requests it paid, newest
 * first, and its transactions: deposits, the receiver's claims and settles, refunds).
 */
export function createChannelRoutes(deps: ServerDeps): Router {
  const router = Router()
  const epoch = () => deps.chain?.sandboxChain.epoch

  router.get('/channels', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const query = parseQuery(listQuery, req.query)
    const principal = principalOf(req)
    const apiId = query.api_id === undefined ? undefined : (await findOwnedApi(deps.db, principal, query.api_id)).id
    const csv = query.format ? query.format === 'csv' : req.accepts(['application/json', 'text/csv']) === 'text/csv'
    const rows = await listChannels(deps.db, principal, { apiId, state: query.state }, query.limit ?? (csv ? 1000 : 50))
    const channels = rows.map((row) => channelRecord(row, epoch()))
    if (!csv) return void res.json({ channels })
    res.setHeader('Content-Type', 'text/csv; charset=utf-8')
    res.setHeader('Content-Disposition', 'attachment; filename="channels.csv"')
    res.send(
      csvLine(channelColumns) +
        channels.map((channel) => csvLine(channelColumns.map((column) => channel[column]))).join(''),
    )
  })

  router.get('/channels/:channelId', guard({ scopes: ['settlements:read'] }), async (req, res) => {
    const query = parseQuery(showQuery, req.query)
    const row = await findChannel(deps.db, principalOf(req), String(req.params.channelId))
    if (!row) throw new NotFoundError('channel not found')
    const [vouchers, transactions] = await Promise.all([
      channelVouchers(deps.db, row, query.vouchers ?? 100),
      channelTransactions(deps.db, row),
    ])
    res.json({
      channel: channelRecord(row, epoch()),
      vouchers: vouchers.map(voucherRecord),
      transactions: transactions.map(transactionRecord),
    })
  })

  return router
}

/** A channel as the control plane answers it (`old_chain`: opened on an earlier Sandbox chain than the running one). */
export function channelRecord(row: BatchChannelRow, epoch: string | undefined) {
  return {
    channel_id: row.channel_id,
    api_id: row.api_id,
    environment: row.environment,
    network: row.network,
    asset: row.token,
    payer: row.payer,
    pay_to: row.receiver,
    withdraw_delay: row.withdraw_delay,
    deposited: row.deposited,
    balance: row.balance,
    spent: row.spent,
    claimed: row.claimed,
    settled: row.settled,
    refunded: row.refunded,
    withdrawn: row.withdrawn,
    vouchers: row.vouchers,
    state: row.state,
    chain_epoch: row.chain_epoch === '' ? null : row.chain_epoch,
    old_chain: row.environment === 'development' && epoch !== undefined && row.chain_epoch !== epoch,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

const voucherRecord = (row: BatchVoucherRow) => ({
  id: row.id,
  api_id: row.api_id,
  endpoint_id: row.endpoint_id,
  method: row.method,
  path: row.path,
  amount: row.amount,
  cumulative: row.cumulative,
  created_at: row.created_at,
})

const transactionRecord = (row: BatchTransactionRow) => ({
  id: row.id,
  kind: row.kind,
  amount: row.amount,
  vouchers: row.vouchers,
  transaction: row.transaction,
  created_at: row.created_at,
})
