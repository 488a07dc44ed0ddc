import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import type { Endpoint } from '../../sdk/types.js'
import { apiId, endpointOutput } from '../schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'

/** `GET /weather/{city} at 10000 (eip155:…), schemas: inferred` */
export function describeEndpoint(e: Endpoint): string {
  const prices = e.accepts.map((a) => `${a.amount} atomic units on ${a.network}`).join(' or ')
  return `${e.method} ${e.path_pattern} (${e.id}) at ${prices}, schemas ${e.schema_source}${e.enabled ? '' : ', disabled'}${e.expires_at ? `, expires ${e.expires_at}` : ''}`
}

/** `svc_list_endpoints`: GET /apis/{id}/endpoints. */
export function registerListEndpoints(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_list_endpoints',
      title: 'List the paid endpoints of an API',
      description:
        'Lists the paid routes of an API: id, method, path pattern, accepted payments (atomic amounts), schema source (openapi, inferred, manual).',
      needs: 'the scope endpoints:read',
      input: z.strictObject({ api_id: apiId }),
      output: z.strictObject({ endpoints: z.array(endpointOutput) }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ api_id }) => {
      const endpoints = await ctx.client.endpoints.list(api_id)
      const lines = endpoints.map((e) => `- ${describeEndpoint(e)}`)
      return { summary: [`${plural(endpoints.length, 'endpoint')}.`, ...lines].join('\n'), data: { endpoints } }
    },
  )
}
