import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { sandboxNeeds, snapshotOutput } from '../sandbox-schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

/** `svc_list_snapshots`: GET /dev/snapshots. */
export function registerListSnapshots(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_list_snapshots',
      title: 'List snapshots',
      description:
        'The snapshots of the local Sandbox that svc_revert_snapshot can go back to, oldest first: id, chain block, when taken. Sandbox (local svc) only.',
      needs: sandboxNeeds,
      input: z.strictObject({}),
      output: z.strictObject({ snapshots: z.array(snapshotOutput) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const snapshots = await ctx.client.snapshots.list()
      const lines = snapshots.map((s) => `- ${s.id}: block ${s.chain_block}, taken ${s.created_at}`)
      return { summary: [`${plural(snapshots.length, 'snapshot')}.`, ...lines].join('\n'), data: { snapshots } }
    },
  )
}
