import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiId, apiOutput, orNull } from '../schemas.js'
import { addTool, type McpContext } from '../tool.js'

const input = z.strictObject({
  api_id: apiId,
  discovery_guidance: orNull(z.string().max(10_000), 'removes the guidance').describe(
    'Guidance for agents (how to use the API, what it costs, what to call first); null removes it',
  ),
})

/** `svc_set_discovery_guidance`: PUT /apis/{id} { discovery_guidance }. */
export function registerSetDiscoveryGuidance(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_set_discovery_guidance',
      title: 'Set the discovery guidance of an API',
      description:
        "Sets the guidance text agents read in the API's gateway OpenAPI document (info.x-guidance); null removes it. Takes effect at once: the discovery documents are generated on every request.",
      needs: 'the scope apis:write and a verified email',
      input,
      output: apiOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ api_id, discovery_guidance }) => {
      const api = await ctx.client.apis.update(api_id, { discovery_guidance })
      const what =
        api.discovery_guidance === null ? 'Removed the discovery guidance of' : 'Set the discovery guidance of'
      return { summary: `${what} ${api.name} (${api.id}).`, data: api }
    },
  )
}
