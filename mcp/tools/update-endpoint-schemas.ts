import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { UsageError } from '../../core/errors.js'
import type { EndpointUpdate } from '../../sdk/types.js'
import { apiId, endpointOutput, jsonSchema } from '../schemas.js'
import { addTool, type McpContext } from '../tool.js'

const input = z.strictObject({
  api_id: apiId,
  endpoint_id: z.string().min(1).max(200).describe('The endpoint id, e.g. from svc_list_endpoints'),
  request_schema: jsonSchema.optional().describe('JSON Schema of the request body'),
  response_schema: jsonSchema
    .optional()
    .describe('JSON Schema of the 200 response; advertised to buyers on 402 probes'),
  clear_schemas: z
    .boolean()
    .optional()
    .describe('true: drop both schemas and infer minimal ones again (schema_source becomes inferred)'),
})

/** `svc_update_endpoint_schemas`: PUT an endpoint with schemas (source manual) or clear_schemas (source inferred). */
export function registerUpdateEndpointSchemas(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_update_endpoint_schemas',
      title: 'Set or clear the JSON Schemas of an endpoint',
      description:
        'Sets the request and/or response JSON Schema of a paid endpoint (schema_source becomes manual), or with clear_schemas: true drops them and infers minimal ones again (schema_source becomes inferred). The gateway OpenAPI document shows them.',
      needs: 'the scope endpoints:write and a verified email',
      input,
      output: endpointOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async ({ api_id, endpoint_id, request_schema, response_schema, clear_schemas }) => {
      const schemas = request_schema !== undefined || response_schema !== undefined
      if (clear_schemas && schemas) throw new UsageError('give schemas or clear_schemas: true, not both')
      if (!clear_schemas && !schemas)
        throw new UsageError('nothing to change: give request_schema and/or response_schema, or clear_schemas: true')
      const update: EndpointUpdate = clear_schemas
        ? { clear_schemas: true }
        : {
            ...(request_schema === undefined ? {} : { request_schema }),
            ...(response_schema === undefined ? {} : { response_schema }),
          }
      const endpoint = await ctx.client.endpoints.update(api_id, endpoint_id, update)
      const what = clear_schemas ? 'Cleared the schemas of' : 'Set the schemas of'
      return {
        summary: `${what} ${endpoint.method} ${endpoint.path_pattern} (${endpoint.id}); schema_source is now ${endpoint.schema_source}.`,
        data: endpoint,
      }
    },
  )
}
