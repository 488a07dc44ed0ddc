import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { describeTime, sandboxNeeds, sandboxTimeOutput } from '../sandbox-schemas.js'
import { addTool, type McpContext } from '../tool.js'

/** `svc_advance_time`: POST /dev/time/advance. */
export function registerAdvanceTime(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_advance_time',
      title: 'Advance Sandbox time',
      description:
        "Time travel: moves the local Sandbox chain's time and svc's clock forward together, by whole seconds (3600 = an hour, 86400 = a day). Endpoints with a ttl expire, payment authorizations past their validity and old session tokens are refused. Time only moves forward; svc_revert_snapshot goes back. Sandbox (local svc) only.",
      needs: sandboxNeeds,
      input: z.strictObject({
        seconds: z.int().min(1).max(315_360_000).describe('How far forward, in whole seconds (at most 10 years)'),
      }),
      output: sandboxTimeOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async ({ seconds }) => {
      const time = await ctx.client.time.advance(seconds)
      return { summary: `Moved forward ${seconds} s. ${describeTime(time)}`, data: time }
    },
  )
}
