import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiOutput } from '../schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

/** `svc_list_apis`: GET /apis. */
export function registerListApis(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_list_apis',
      title: 'List APIs',
      description:
        "Lists the seller's paid APIs in the API key's environment (Sandbox or live): id, slug, upstream and gateway URL. Use it to find the api_id other svc_ tools take.",
      needs: 'the scope apis:read',
      input: z.strictObject({}),
      output: z.strictObject({ apis: z.array(apiOutput) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async () => {
      const apis = await ctx.client.apis.list()
      const lines = apis.map(
        (api) => `- ${api.name} (${api.id}, slug ${api.slug}): ${api.gateway_url} → ${api.upstream_base_url}`,
      )
      return { summary: [`${plural(apis.length, 'API')}.`, ...lines].join('\n'), data: { apis } }
    },
  )
}
