import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiId, orNull } from '../schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

const counters = { requests: z.int(), payment_required: z.int(), paid_requests: z.int(), settlements: z.int() }
const revenue = z.looseObject({ network: z.string(), asset: z.string(), amount: z.string() })

const output = z.looseObject({
  days: z.int(),
  from: z.string(),
  to: z.string(),
  api_id: orNull(z.string(), 'all APIs'),
  totals: z.looseObject({ ...counters, unique_payers: z.int() }),
  revenue: z.array(revenue),
  daily: z.array(z.looseObject({ ...counters, day: z.string(), revenue: z.array(revenue) })),
})

/** `svc_get_stats`: GET /stats/overview. */
export function registerGetStats(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_get_stats',
      title: 'Traffic and revenue',
      description:
        "Gateway traffic and revenue of the last `days` UTC days (today included) in the key's environment, for all APIs or one: requests, 402 answers, paid requests, settlements, unique payers, revenue per network and asset (atomic units), and a daily breakdown.",
      needs: 'the scope stats:read',
      input: z.strictObject({
        days: z.int().min(1).max(365).optional().describe('How many days, 1-365 (default 7)'),
        api_id: apiId.optional().describe('Only this API (default: all)'),
      }),
      output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ days, api_id }) => {
      const stats = await ctx.client.stats.overview({ days, api_id })
      const { totals } = stats
      const earned =
        stats.revenue.map((r) => `${r.amount} atomic units of ${r.asset} on ${r.network}`).join(', ') || 'nothing yet'
      return {
        summary: `${stats.from} to ${stats.to}: ${plural(totals.requests, 'request')}, ${totals.paid_requests} paid, ${plural(totals.settlements, 'settlement')} from ${plural(totals.unique_payers, 'payer')}; revenue ${earned}.`,
        data: stats,
      }
    },
  )
}
