import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiId, orNull } from '../schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

const moment = z.string().min(1).max(40)

const output = z.looseObject({
  settlements: z.array(
    z.looseObject({
      id: z.string(),
      api_id: z.string(),
      endpoint_id: orNull(z.string(), 'the endpoint is gone'),
      network: z.string(),
      asset: z.string(),
      amount: z.string(),
      payer: z.string(),
      pay_to: z.string(),
      transaction: z.string(),
      method: z.string(),
      path: z.string(),
      created_at: z.string(),
    }),
  ),
  next_cursor: orNull(z.string(), 'no more pages'),
})

/** `svc_list_settlements`: GET /settlements (one page). */
export function registerListSettlements(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_list_settlements',
      title: 'Settled payments',
      description:
        "Payments settled on chain for the seller's APIs in the key's environment, newest first, one page at a time: payer, amount (atomic units), asset, network, transaction hash, route. Pass next_cursor back as cursor for the next page.",
      needs: 'the scope settlements:read',
      input: z.strictObject({
        api_id: apiId.optional().describe('Only this API'),
        endpoint_id: z.string().min(1).max(200).optional().describe('Only this endpoint'),
        from: moment.optional().describe('From this day (YYYY-MM-DD) or ISO timestamp with a zone'),
        to: moment.optional().describe('Up to this day (YYYY-MM-DD) or ISO timestamp with a zone'),
        limit: z.int().min(1).max(200).optional().describe('Page size, 1-200'),
        cursor: z.string().min(1).max(500).optional().describe('next_cursor of the previous page'),
      }),
      output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async (query) => {
      const page = await ctx.client.settlements.list(query)
      const more = page.next_cursor ? ' More with cursor.' : ''
      return { summary: `${plural(page.settlements.length, 'settlement')} on this page.${more}`, data: page }
    },
  )
}
