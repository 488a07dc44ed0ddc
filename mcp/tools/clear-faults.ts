import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { sandboxNeeds } from '../sandbox-schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

/** `svc_clear_faults`: DELETE /dev/faults/{faultId}, or DELETE /dev/faults without an id. */
export function registerClearFaults(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_clear_faults',
      title: 'Clear faults',
      description:
        'Clears one fault injected into the local Sandbox (fault_id, from svc_add_fault or svc_list_faults), or every fault without it. Sandbox (local svc) only.',
      needs: sandboxNeeds,
      input: z.strictObject({
        fault_id: z
          .string()
          .min(1)
          .max(200)
          .optional()
          .describe('The fault (flt_…); leave it out to clear every fault'),
      }),
      output: z.strictObject({ cleared: z.number().describe('how many faults were cleared') }),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ fault_id }) => {
      const cleared = await ctx.client.faults.clear(fault_id)
      return { summary: `Cleared ${plural(cleared, 'fault')}.`, data: { cleared } }
    },
  )
}
