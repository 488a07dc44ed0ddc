import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import type { EndpointRow } from '../db/tables.js'
import { inferredRequestComment, type JsonSchema } from '../upstream/index.js'

const bodyMethods = new Set(['POST', 'PUT', 'PATCH'])

/**
 * The Bazaar discovery extension (`declareDiscoveryExtension`) of an endpoint: its request schema (body, and path
 * parameters of svc-inferred schemas) with an example body derived from it, and its response schema with an example
 * derived from it, so a 402 probe shows the output shape and a facilitator's bazaar can catalog it.
 */
export function discoveryExtension(endpoint: EndpointRow): Record<string, unknown> {
  const request = endpoint.request_schema === null ? null : (JSON.parse(endpoint.request_schema) as JsonSchema)
  const response = endpoint.response_schema === null ? null : (JSON.parse(endpoint.response_schema) as JsonSchema)
  const inferred = request?.$comment === inferredRequestComment
  const parts = (inferred ? request.properties : undefined) as Record<string, JsonSchema> | undefined
  const pathParamsSchema = parts?.path
  const bodySchema = inferred ? parts?.body : (request ?? undefined)
  const output = response ? { example: exampleOf(response), schema: response } : undefined
  const common = { ...(pathParamsSchema ? { pathParamsSchema } : {}), ...(output ? { output } : {}) }
  return bodyMethods.has(endpoint.method)
    ? declareDiscoveryExtension({
        bodyType: 'json',
        // The example body must satisfy the schema: a facilitator validates info against it before cataloging
        // (x402's bazaar spec), and `{}` fails a schema with required properties.
        ...(bodySchema ? { inputSchema: bodySchema, input: exampleOf(bodySchema) as Record<string, unknown> } : {}),
        ...common,
      })
    : declareDiscoveryExtension(common)
}

/** A value shaped like `schema`: its own example/default/const/enum first, else a placeholder per type. */
export function exampleOf(schema: JsonSchema, depth = 0): unknown {
  if (depth > 8) return null
  if ('example' in schema) return schema.example
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0]
  if ('default' in schema) return schema.default
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]
  const variants = (schema.oneOf ?? schema.anyOf ?? schema.allOf) as JsonSchema[] | undefined
  if (Array.isArray(variants) && variants[0]) return exampleOf(variants[0], depth + 1)
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
      return Object.fromEntries(
        Object.entries(properties).map(([name, property]) => [name, exampleOf(property, depth + 1)]),
      )
    }
    case 'array':
      return schema.items && typeof schema.items === 'object' ? [exampleOf(schema.items as JsonSchema, depth + 1)] : []
    case 'string':
      return 'string'
    case 'integer':
    case 'number':
      return 1
    case 'boolean':
      return true
    case 'null':
      return null
    default:
      return schema.properties ? exampleOf({ ...schema, type: 'object' }, depth + 1) : {}
  }
}
