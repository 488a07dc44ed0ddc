import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiId } from '../schemas.js'
import { addTool, type McpContext } from '../tool.js'

const output = z.looseObject({
  primary_host: z.string(),
  hosts: z.array(z.string()),
  openapi_url: z.string(),
  well_known_url: z.string(),
  endpoint_count: z.int(),
  discoverable_endpoint_count: z.int(),
  host_urls: z.array(
    z.looseObject({ host: z.string(), openapi_url: z.string(), well_known_url: z.string(), is_primary: z.boolean() }),
  ),
})

/** `svc_discovery_urls`: GET /apis/{id}/discovery. */
export function registerDiscoveryUrls(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_discovery_urls',
      title: 'Discovery URLs of an API',
      description:
        "Where an API's discovery documents are published: the gateway OpenAPI 3.1 document (/openapi.json) and the x402 manifest (/.well-known/x402.json) on every verified host, and how many endpoints they list (ephemeral and disabled ones are left out).",
      needs: 'the scope apis:read',
      input: z.strictObject({ api_id: apiId }),
      output,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ api_id }) => {
      const summary = await ctx.client.discovery(api_id)
      return {
        summary: `OpenAPI: ${summary.openapi_url}\nx402 manifest: ${summary.well_known_url}\n${summary.discoverable_endpoint_count} of ${summary.endpoint_count} endpoints listed (primary host ${summary.primary_host}).`,
        data: summary,
      }
    },
  )
}
