import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { z } from 'zod'
import { apiOutput } from '../schemas.js'
import { addTool, type McpContext } from '../tool.js'

const input = z.strictObject({
  name: z.string().trim().min(1).max(100).describe('Display name, e.g. "Weather"'),
  slug: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, {
      error: 'a DNS label: 1-63 lower-case letters, digits and inner hyphens',
    })
    .describe('Unique gateway subdomain, e.g. "weather" → weather.dev.localhost in the Sandbox'),
  upstream_base_url: z
    .url({
      protocol: /^https?$/,
      error: (issue) => (issue.input === undefined ? undefined : 'an absolute http(s) URL'),
    })
    .max(2048)
    .describe('The upstream HTTP API the gateway wraps'),
  pay_to_address: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'an EVM address (0x followed by 40 hex digits)' })
    .describe('EVM address that receives the payments'),
  discovery_guidance: z
    .string()
    .max(10_000)
    .optional()
    .describe('Guidance for agents, published as info.x-guidance of the gateway OpenAPI document'),
  discovery_contact_email: z
    .email()
    .max(254)
    .optional()
    .describe('Contact email of the gateway OpenAPI document (default: the owner’s)'),
  openapi_version: z
    .string()
    .trim()
    .min(1)
    .max(50)
    .optional()
    .describe('info.version of the gateway OpenAPI document (default 1.0.0)'),
})

/** `svc_create_api`: POST /apis with pay_to_mode user_wallet. */
export function registerCreateApi(server: McpServer, ctx: McpContext) {
  addTool(
    server,
    {
      name: 'svc_create_api',
      title: 'Create an API',
      description:
        'Registers an upstream HTTP API behind a paid x402 gateway, in the API key’s environment. Payments go to pay_to_address. Add paid routes next with svc_create_endpoint or svc_import_openapi. A slug in use is refused ("slug already exists").',
      needs: 'the scope apis:write and a verified email',
      input,
      output: apiOutput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    },
    async (args) => {
      const api = await ctx.client.apis.create({ ...args, pay_to_mode: 'user_wallet' })
      return {
        summary: `Created API ${api.name} (${api.id}): ${api.gateway_url} wraps ${api.upstream_base_url}.`,
        data: api,
      }
    },
  )
}
