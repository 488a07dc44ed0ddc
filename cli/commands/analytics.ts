import type { Command } from 'commander'
import type { Settlement, StatsRevenue } from '../../sdk/types.js'
import { UsageError } from '../../core/errors.js'
import { formatUsdc } from '../../core/sandbox-usdc.js'
import { formatQuantity } from '../amounts.js'
import { emptyListMessage } from '../elsewhere.js'
import { action, addCommand, type CliContext } from '../context.js'
import { parseInteger } from '../inputs.js'

const short = (hex: string) => (hex.length > 14 ? `${hex.slice(0, 8)}…${hex.slice(-4)}` : hex)

type Token = { decimals: number; symbol?: string }

/** `0.05 USDC` for a token svc names; `0.05 (0x1234ab…2913)` when only its decimals are known; else atomic units. */
function revenueText(entry: { asset: string; amount: string }, tokens: Map<string, Token>): string {
  const known = tokens.get(entry.asset)
  if (known === undefined) return `${entry.amount} units of ${short(entry.asset)}`
  const quantity = formatQuantity(entry.amount, known.decimals)
  return known.symbol ? `${quantity} ${known.symbol}` : `${quantity} (${short(entry.asset)})`
}

/** `svc stats` and `svc settlements`. */
export function registerAnalytics(program: Command, ctx: CliContext) {
  addCommand(program, 'stats', 'gateway traffic and revenue of the last days')
    .option('--days <n>', 'number of UTC days, today included (1-365)', '7')
    .option('--api <id>', 'only this API')
    .action(
      action<{ days: string; api?: string }>(ctx, async (call) => {
        const days = parseInteger(call.options.days, '--days', 1, 365)
        const stats = await call.client().stats.overview({ days, api_id: call.options.api })
        if (call.out.isJson) return call.out.json(stats)
        // The totals name the tokens they know; the days' lines are the same tokens.
        const tokens = new Map<string, Token>(
          stats.revenue
            .filter((r): r is StatsRevenue & { decimals: number } => r.decimals !== undefined)
            .map((r) => [r.asset, { decimals: r.decimals, symbol: r.symbol }]),
        )
        const revenue = (list: { asset: string; amount: string }[]) =>
          list.map((r) => revenueText(r, tokens)).join(', ') || '0'
        const { totals } = stats
        call.out.line(
          `${stats.from} to ${stats.to} (${stats.days} days), ${stats.api_id ? `API ${stats.api_id}` : 'all APIs'}`,
        )
        call.out.fields([
          ['requests', totals.requests],
          ['402 answers', totals.payment_required],
          ['paid requests', totals.paid_requests],
          ['settlements', totals.settlements],
          ['unique payers', totals.unique_payers],
          ['revenue', revenue(stats.revenue)],
        ])
        call.out.line()
        call.out.table(
          ['DAY', 'REQUESTS', '402', 'PAID', 'SETTLED', 'REVENUE'],
          stats.daily.map((d) => [
            d.day,
            d.requests,
            d.payment_required,
            d.paid_requests,
            d.settlements,
            revenue(d.revenue),
          ]),
          '',
        )
      }),
    )

  addCommand(program, 'settlements', 'settled payments, newest first')
    .option('--api <id>', 'only this API')
    .option('--endpoint <id>', 'only this endpoint')
    .option('--from <time>', 'from this ISO timestamp or YYYY-MM-DD day (inclusive)')
    .option('--to <time>', 'to this ISO timestamp or YYYY-MM-DD day (inclusive)')
    .option('--limit <n>', 'page size (1-200, default 50)')
    .option('--cursor <cursor>', 'the next page: the cursor printed by the previous one')
    .option('--csv', 'write every matching settlement as CSV to stdout')
    .action(
      action<{
        api?: string
        endpoint?: string
        from?: string
        to?: string
        limit?: string
        cursor?: string
        csv?: boolean
      }>(ctx, async (call) => {
        const o = call.options
        const filter = { api_id: o.api, endpoint_id: o.endpoint, from: o.from, to: o.to }
        if (o.csv) {
          if (o.json) throw new UsageError('give --csv or --json, not both')
          if (o.limit !== undefined || o.cursor !== undefined)
            throw new UsageError('--limit and --cursor do not apply to --csv: it has every matching row')
          const csv = await call.client().settlements.csv(filter)
          call.io.stdout.write(csv)
          return
        }
        const limit = o.limit === undefined ? undefined : parseInteger(o.limit, '--limit', 1, 200)
        const page = await call.client().settlements.list({ ...filter, limit, cursor: o.cursor })
        if (call.out.isJson) return call.out.json(page)
        // Amounts of the Sandbox USDC read as USDC; other assets stay in atomic units.
        const usdc = await call
          .client()
          .config.localDev()
          .then(
            (c) => c.usdc.address.toLowerCase(),
            () => undefined,
          )
        // Settlements carry the API's id; a person knows the API by its slug (a deleted API keeps its id).
        const slugs = page.settlements.length
          ? await call
              .client()
              .apis.list()
              .then(
                (apis) => new Map(apis.map((a) => [a.id, a.slug])),
                () => new Map<string, string>(),
              )
          : new Map<string, string>()
        call.out.table(
          settlementHeaders,
          fitRows(page.settlements.map((s) => settlementRow(s, usdc, slugs))),
          // Filtered by an API or endpoint (they belong to one environment) or by dates: nothing to say elsewhere.
          page.settlements.length || o.cursor || o.api || o.endpoint || o.from || o.to
            ? 'no settlements'
            : await emptyListMessage(call.settings(), {
                what: ['settlement', 'settlements'],
                command: 'svc settlements',
                count: async (client) => {
                  const { settlements, next_cursor } = await client.settlements.list({ limit: 200 })
                  return next_cursor ? `${settlements.length}+` : settlements.length
                },
              }),
        )
        if (page.next_cursor)
          call.out.line(call.out.dim(`more: run again with --cursor ${page.next_cursor} (and the same filters)`))
      }),
    )
}

/** The widest line `svc settlements` prints: full hashes and addresses are in `--json` and `--csv`. */
const tableWidth = 120
const settlementHeaders = ['CREATED', 'API', 'REQUEST', 'AMOUNT', 'PAYER', 'TRANSACTION', 'ANSWER']
const ellipsis = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/** Shortens the API (at most 20 columns) and then the request so that no line is wider than {@link tableWidth}. */
function fitRows(rows: string[][]): string[][] {
  const capped = rows.map((row) => row.map((cell, i) => (i === 1 ? ellipsis(cell, 20) : cell)))
  const others = settlementHeaders
    .map((header, i) => (i === 2 ? 0 : Math.max(header.length, ...capped.map((row) => row[i]!.length))))
    .reduce((a, b) => a + b, 0)
  const room = Math.max('REQUEST'.length, tableWidth - others - 2 * (settlementHeaders.length - 1))
  return capped.map((row) => row.map((cell, i) => (i === 2 ? ellipsis(cell, room) : cell)))
}

function settlementRow(s: Settlement, usdc: string | undefined, slugs: Map<string, string>): string[] {
  const amount = usdc && s.asset.toLowerCase() === usdc ? `${formatUsdc(s.amount)} USDC` : `${s.amount} units`
  // A settlement of an earlier Sandbox chain: its transaction is gone with that chain.
  // An upto payment settled at 0 charged nothing and sent no transaction.
  const sent = s.transaction ? short(s.transaction) : '- (nothing sent)'
  const transaction = s.old_chain ? `${sent} (old chain)` : sent
  // Charged without the answer: the buyer's connection went away after the settlement, or svc stopped mid-payment.
  return [
    s.created_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, 'Z'),
    slugs.get(s.api_id) ?? s.api_id,
    `${s.method} ${s.path}`,
    amount,
    short(s.payer),
    transaction,
    s.escrow ? escrowState(s.escrow) : s.delivered ? 'delivered' : 'NOT DELIVERED',
  ]
}

/** An escrow payment's settlement (auth-capture): where its hold is, e.g. `held 0.01`, `captured 0.006/0.01`. */
function escrowState(e: NonNullable<Settlement['escrow']>): string {
  const held = BigInt(e.authorized) - BigInt(e.captured) - BigInt(e.voided) - BigInt(e.reclaimed)
  if (e.state === 'authorized')
    return BigInt(e.captured) > 0n
      ? `captured ${formatUsdc(e.captured)}/${formatUsdc(e.authorized)}, held ${formatUsdc(held > 0n ? held : 0n)}`
      : `held ${formatUsdc(e.authorized)}`
  if (e.state === 'captured' || e.state === 'charged')
    return BigInt(e.refunded) > 0n
      ? `${e.state} ${formatUsdc(e.captured)}/${formatUsdc(e.authorized)}, refunded ${formatUsdc(e.refunded)}`
      : `${e.state} ${formatUsdc(e.captured)}/${formatUsdc(e.authorized)}`
  if (e.state === 'refunded') return `refunded ${formatUsdc(e.refunded)}`
  return e.state
}
