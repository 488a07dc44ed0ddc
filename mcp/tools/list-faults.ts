import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { describeFault, faultOutput, sandboxNeeds } from '../sandbox-schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

/** `svc_list_faults`: GET /dev/faults. */
export function registerListFaults(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_list_faults',
      title: 'List faults',
      description:
        'The faults injected into the local Sandbox with svc_add_fault, oldest first (what each does, the API it strikes, strikes left, hits so far), and every x402 reason code a verify or settle fault may answer. Sandbox (local svc) only.',
      needs: sandboxNeeds,
      input: z.strictObject({}),
      output: z.strictObject({ faults: z.array(faultOutput), reasons: z.array(z.string()) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const list = await ctx.client.faults.list()
      const lines = list.faults.map((fault) => `- ${describeFault(fault)}`)
      return { summary: [`${plural(list.faults.length, 'fault')} in force.`, ...lines].join('\n'), data: list }
    },
  )
}
