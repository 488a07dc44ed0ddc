import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { sandboxNeeds, snapshotOutput } from '../sandbox-schemas.js'
import { addTool, type McpContext } from '../tool.js'

const output = snapshotOutput.extend({
  took_ms: z.number(),
  discarded: z.array(z.string()).describe('the snapshots taken after this one, discarded'),
})

/** `svc_revert_snapshot`: POST /dev/snapshots/{snapshotId}/revert. */
export function registerRevertSnapshot(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_revert_snapshot',
      title: 'Revert to a snapshot',
      description:
        "Puts the whole local Sandbox back as it was at a snapshot: the chain, the control plane's state and svc's clock. Everything since is undone; the snapshot stays usable, snapshots taken after it are discarded. Sandbox (local svc) only.",
      needs: sandboxNeeds,
      input: z.strictObject({
        snapshot_id: z.string().min(1).max(200).describe('The snapshot id, from svc_snapshot or svc_list_snapshots'),
      }),
      output,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ snapshot_id }) => {
      const reverted = await ctx.client.snapshots.revert(snapshot_id)
      const discarded =
        reverted.discarded.length > 0
          ? ` Discarded the snapshots taken after it: ${reverted.discarded.join(', ')}.`
          : ''
      return {
        summary: `Reverted to ${reverted.id} (block ${reverted.chain_block}, taken ${reverted.created_at}) in ${reverted.took_ms} ms.${discarded}`,
        data: reverted,
      }
    },
  )
}
