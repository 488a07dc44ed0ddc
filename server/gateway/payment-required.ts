import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentRequired, PaymentRequirements } from '@x402/core/types'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { routePatternOf } from '../../core/path-pattern.js'
import { inferredRequestComment, type JsonSchema } from '../schema-inference.js'
import type { ApiRow } from '../db/tables.js'
import type { GatewayRoute } from './endpoint-table.js'
import { FacilitatorUnavailableError } from './resource-servers.js'

/** What a route asks for under one facilitator: its requirements and the declared Bazaar extension. */
export type Offer = {
  requirements: PaymentRequirements[]
  declaredExtensions: Record<string, unknown>
  /** Encoded unpaid 402s by resource URL (bounded). */
  unpaid: Map<string, EncodedPaymentRequired>
}

export type EncodedPaymentRequired = { header: string; body: string; paymentRequired: PaymentRequired }

const bodyMethods = new Set(['POST', 'PUT', 'PATCH'])
const unpaidCacheSize = 256
export const paymentRequiredMessage = 'payment required'

/**
 * The route's offer under `server`, built once per route version and facilitator: each accept option becomes
 * `PaymentRequirements` through `buildPaymentRequirements` with an explicit `{amount, asset, extra}` price and the
 * API's pay-to address. Options the facilitator does not support are left out; none left is a 503.
 */
export function offerFor(route: GatewayRoute, server: x402ResourceServer, api: ApiRow): Promise<Offer> {
  let offer = route.derived.get(server) as Promise<Offer> | undefined
  if (!offer) {
    offer = buildOffer(route, server, api)
    offer.catch(() => route.derived.delete(server))
    route.derived.set(server, offer)
  }
  return offer
}

async function buildOffer(route: GatewayRoute, server: x402ResourceServer, api: ApiRow): Promise<Offer> {
  const requirements: PaymentRequirements[] = []
  const problems: string[] = []
  for (const accept of route.accepts) {
    try {
      const built = await server.buildPaymentRequirements({
        scheme: accept.scheme,
        network: accept.network as PaymentRequirements['network'],
        payTo: api.pay_to_address ?? '',
        price: { amount: accept.amount, asset: accept.asset, extra: accept.extra ?? {} },
        maxTimeoutSeconds: accept.max_timeout_seconds,
      })
      requirements.push(...built)
    } catch (error) {
      problems.push(`${accept.scheme} on ${accept.network}: ${(error as Error).message}`)
    }
  }
  if (requirements.length === 0)
    throw new FacilitatorUnavailableError(`the facilitator cannot take any payment option of ${route.endpoint.method} ${route.endpoint.path_pattern} (${problems.join('; ')})`)
  return { requirements, declaredExtensions: discoveryExtension(route), unpaid: new Map() }
}

/**
 * The x402 v2 PaymentRequired of a request, built by the resource server (`createPaymentRequiredResponse`, with the
 * Bazaar extension enriched for this method and path) and encoded with `encodePaymentRequiredHeader`. Unpaid 402s
 * (the default message) are cached per resource URL: they depend on nothing else.
 */
export async function paymentRequired(
  server: x402ResourceServer,
  route: GatewayRoute,
  offer: Offer,
  request: { url: string; path: string; description: string },
  error: string = paymentRequiredMessage,
): Promise<EncodedPaymentRequired> {
  const cacheable = error === paymentRequiredMessage
  const cached = cacheable ? offer.unpaid.get(request.url) : undefined
  if (cached) return cached
  const extensions = server.enrichExtensions(offer.declaredExtensions, {
    method: route.endpoint.method,
    adapter: { getPath: () => request.path },
    routePattern: routePatternOf(route.endpoint.path_pattern),
  })
  const resource = { url: request.url, description: request.description, mimeType: 'application/json' }
  const built = await server.createPaymentRequiredResponse(offer.requirements, resource, error, extensions)
  const encoded = { header: encodePaymentRequiredHeader(built), body: JSON.stringify(built), paymentRequired: built }
  if (cacheable) {
    if (offer.unpaid.size >= unpaidCacheSize) offer.unpaid.clear()
    offer.unpaid.set(request.url, encoded)
  }
  return encoded
}

/**
 * The Bazaar discovery extension (`declareDiscoveryExtension`) of an endpoint: its request schema (body, and path
 * parameters of svc-inferred schemas) and its response schema with an example derived from it, so a 402 probe shows
 * the output shape.
 */
export function discoveryExtension(route: GatewayRoute): Record<string, unknown> {
  const { endpoint } = route
  const request = endpoint.request_schema === null ? null : (JSON.parse(endpoint.request_schema) as JsonSchema)
  const response = endpoint.response_schema === null ? null : (JSON.parse(endpoint.response_schema) as JsonSchema)
  const inferred = request?.$comment === inferredRequestComment
  const parts = (inferred ? request.properties : undefined) as Record<string, JsonSchema> | undefined
  const pathParamsSchema = parts?.path
  const bodySchema = inferred ? parts?.body : (request ?? undefined)
  const output = response ? { example: exampleOf(response), schema: response } : undefined
  const common = { ...(pathParamsSchema ? { pathParamsSchema } : {}), ...(output ? { output } : {}) }
  return bodyMethods.has(endpoint.method)
    ? declareDiscoveryExtension({ bodyType: 'json', ...(bodySchema ? { inputSchema: bodySchema } : {}), ...common })
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
      return Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, exampleOf(property, depth + 1)]))
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
