import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { acceptsFromPricing } from '../pricing.js'
import { apiId, endpointOutput, httpMethod, jsonSchema, pricingFields } from '../schemas.js'
import { addTool, type McpContext } from '../tool.js'
import { describeEndpoint } from './list-endpoints.js'

const input = z.strictObject({
  api_id: apiId,
  method: httpMethod,
  path_pattern: z
    .string()
    .regex(/^\//, { error: 'must start with "/"' })
    .max(1000)
    .describe(
      'Route pattern: literal segments, whole-segment {name} parameters, an optional trailing * wildcard; e.g. /weather/{city} or /files/*',
    ),
  ...pricingFields,
  request_schema: jsonSchema.optional().describe('JSON Schema of the request body (optional; inferred when absent)'),
  response_schema: jsonSchema.optional().describe('JSON Schema of the 200 response (optional; inferred when absent)'),
  description: z.string().max(10_000).optional().describe('What the endpoint does'),
  ttl: z
    .int()
    .min(1)
    .max(31_536_000)
    .optional()
    .describe('Seconds until an ephemeral endpoint is removed; it is also removed after its first payment'),
})

/** `svc_create_endpoint`: POST /apis/{id}/endpoints with one accept option. */
export function registerCreateEndpoint(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_create_endpoint',
      title: 'Create a paid endpoint',
      description:
        'Adds a paid route (method + path pattern) to an API at a price: price in USDC ("0.01") or amount in atomic units ("10000"). With a Sandbox key, network and asset default to the Sandbox chain and its USDC. Schemas are optional; without them minimal ones are inferred.',
      needs: 'the scope endpoints:write and a verified email',
      input,
      output: endpointOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const { api_id, method, path_pattern, request_schema, response_schema, description, ttl } = args
      const accepts = await acceptsFromPricing(ctx, args)
      const endpoint = await ctx.client.endpoints.create(api_id, {
        method,
        path_pattern,
        accepts,
        ...(request_schema === undefined ? {} : { request_schema }),
        ...(response_schema === undefined ? {} : { response_schema }),
        ...(description === undefined ? {} : { description }),
        ...(ttl === undefined ? {} : { ttl }),
      })
      return { summary: `Created ${describeEndpoint(endpoint)}.`, data: endpoint }
    },
  )
}
