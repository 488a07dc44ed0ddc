import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { sandboxNeeds, snapshotOutput } from '../sandbox-schemas.js'
import { addTool, type McpContext } from '../tool.js'

/** `svc_snapshot`: POST /dev/snapshots. */
export function registerSnapshot(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_snapshot',
      title: 'Snapshot the Sandbox',
      description:
        "Snapshots the whole local Sandbox: the chain, the control plane's state (accounts, keys, APIs, endpoints, settlements, counters) and svc's clock, together. Go back to it with svc_revert_snapshot. Snapshots last as long as the chain runs. Sandbox (local svc) only.",
      needs: sandboxNeeds,
      input: z.strictObject({}),
      output: snapshotOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async () => {
      const snapshot = await ctx.client.snapshots.take()
      return {
        summary: `Took snapshot ${snapshot.id} at block ${snapshot.chain_block} (${snapshot.created_at}).`,
        data: snapshot,
      }
    },
  )
}
