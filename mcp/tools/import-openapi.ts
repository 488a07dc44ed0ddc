import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { acceptsFromPricing } from '../pricing.js'
import { apiId, endpointOutput, pricingFields } from '../schemas.js'
import { addTool, plural, type McpContext } from '../tool.js'
import { UsageError } from '../../core/errors.js'

const input = z.strictObject({
  api_id: apiId,
  spec: z
    .string()
    .min(1)
    .max(1024 * 1024)
    .describe('The OpenAPI 3.0 or 3.1 document as YAML or JSON text (at most 1 MB)'),
  ...pricingFields,
})

const output = z.strictObject({
  operations: z.int().describe('operations found in the document'),
  created: z.array(endpointOutput),
  skipped: z.array(z.looseObject({ method: z.string(), path_pattern: z.string(), reason: z.string() })),
})

/** `svc_import_openapi`: POST /openapi/parse, then POST /apis/{id}/openapi/import at one price. */
export function registerImportOpenApi(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_import_openapi',
      title: 'Import an OpenAPI document as paid endpoints',
      description:
        'Parses an OpenAPI 3.0/3.1 document (YAML or JSON text) and creates one paid endpoint per operation, all at one price (price in USDC or amount in atomic units; Sandbox defaults for network and asset). Schemas from the document are kept (schema_source openapi). Idempotent: operations whose method and path already exist are skipped.',
      needs: 'the scopes openapi:read and endpoints:write, and a verified email',
      input,
      output,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args) => {
      const accepts = await acceptsFromPricing(ctx, args)
      const { operations } = await ctx.client.openapi.parse(args.spec)
      if (operations.length === 0) throw new UsageError('the document has no operations to import')
      const { created, skipped } = await ctx.client.openapi.import(args.api_id, operations, accepts)
      const lines = [
        `Imported ${plural(operations.length, 'operation')}: created ${created.length}, skipped ${skipped.length} (already there).`,
        ...created.map((e) => `+ ${e.method} ${e.path_pattern} (${e.id}), schemas ${e.schema_source}`),
        ...skipped.map((s) => `= ${s.method} ${s.path_pattern}: ${s.reason}`),
      ]
      return { summary: lines.join('\n'), data: { operations: operations.length, created, skipped } }
    },
  )
}
