import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { describeTime, sandboxNeeds, sandboxTimeOutput } from '../sandbox-schemas.js'
import { addTool, type McpContext } from '../tool.js'

/** `svc_get_time`: GET /dev/time. */
export function registerGetTime(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_get_time',
      title: 'Sandbox time',
      description:
        "The local Sandbox chain's time (the latest block's timestamp, seconds since the epoch) and svc's own clock, with how far svc_advance_time has moved it ahead of the machine's. Sandbox (local svc) only.",
      needs: sandboxNeeds,
      input: z.strictObject({}),
      output: sandboxTimeOutput,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const time = await ctx.client.time.get()
      return { summary: describeTime(time), data: time }
    },
  )
}
