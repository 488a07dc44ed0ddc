import { z } from 'zod'

/** Input fields and output shapes the svc_* tools share (server/openapi.yaml is the authority for the shapes). */

export const apiId = z.string().min(1).max(200).describe('The API id, e.g. from svc_list_apis or svc_create_api')

export const httpMethod = z
  .enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'])
  .describe('HTTP method, upper case')

export const jsonSchema = z.record(z.string(), z.unknown())

/**
 * `schema` or null, in the JSON Schema of tools/list as `anyOf: [<schema>, {"type": "null"}]`. zod's `.nullable()`
 * of a bare type becomes a type array (`"type": ["string", "null"]`), which strict MCP clients warn about; zod never
 * folds a branch that carries more than its type, so the null branch here carries its meaning.
 */
export function orNull<T extends z.ZodType>(schema: T, meaning = 'not set') {
  return z.union([schema, z.null().describe(meaning)])
}

/** A price: `price` (decimal USDC) or `amount` (atomic units), and where it is paid. */
export const pricingFields = {
  price: z
    .union([
      z.string().regex(/^\d+(\.\d{1,6})?$/, { error: 'a decimal USDC amount with at most 6 decimals, e.g. "0.01"' }),
      // MCP clients send numbers for a field like this one: mcp/pricing.ts turns 0.01 into "0.01", exactly, or refuses.
      z.number(),
    ])
    .optional()
    .describe(
      'Price per request in USDC: a decimal string like "0.01" (= 10000 atomic units), or the number 0.01. Give price or amount, not both.',
    ),
  amount: z
    .string()
    .regex(/^[1-9][0-9]{0,77}$/, { error: 'a positive whole number of atomic units, e.g. "10000"' })
    .optional()
    .describe(
      'Price per request in atomic units of the asset, e.g. "10000" (USDC has 6 decimals). Give price or amount, not both.',
    ),
  network: z
    .string()
    .regex(/^eip155:[1-9][0-9]*$/, { error: 'a CAIP-2 EVM network id like "eip155:8453"' })
    .optional()
    .describe(
      'CAIP-2 network id. Defaults to the Sandbox network (eip155:845320402) with a Sandbox key; required with a live key.',
    ),
  asset: z
    .string()
    .regex(/^0x[0-9a-fA-F]{40}$/, { error: 'a token contract address (0x followed by 40 hex digits)' })
    .optional()
    .describe('Token contract address. Defaults to the Sandbox USDC with a Sandbox key; required with a live key.'),
  max_timeout_seconds: z
    .int()
    .min(1)
    .max(86_400)
    .optional()
    .describe('Payment validity window in seconds (default 300)'),
}

const accept = z.looseObject({
  scheme: z.string(),
  network: z.string(),
  asset: z.string(),
  amount: z.string(),
  max_timeout_seconds: z.number().optional(),
  extra: z.record(z.string(), z.unknown()).optional(),
})

export const apiOutput = z.looseObject({
  id: z.string(),
  name: z.string(),
  slug: z.string(),
  environment: z.string(),
  upstream_base_url: z.string(),
  pay_to_mode: z.string(),
  pay_to_address: orNull(z.string()),
  discovery_guidance: orNull(z.string()),
  discovery_contact_email: orNull(z.string()),
  openapi_version: z.string(),
  gateway_url: z.string(),
})

export const endpointOutput = z.looseObject({
  id: z.string(),
  api_id: z.string(),
  method: z.string(),
  path_pattern: z.string(),
  accepts: z.array(accept),
  request_schema: orNull(jsonSchema),
  response_schema: orNull(jsonSchema),
  schema_source: z.enum(['inferred', 'openapi', 'manual']),
  enabled: z.boolean(),
  description: orNull(z.string()),
  ttl: orNull(z.number()),
  expires_at: orNull(z.string()),
})
