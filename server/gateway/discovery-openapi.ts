/**
 * The gateway's discovery documents, built from live rows (pure functions; the handlers read the rows).
 *
 * OpenAPI 3.1 (GET /openapi.json), in the profile `@agentcash/discovery` reads: one operation per discoverable
 * endpoint with `security: []`, `x-payment-info` `{ price, protocols: [{ x402: {} }] }`, a 200 and a 402 response.
 *
 * Path patterns become OpenAPI paths and path parameters by `openApiPath` and `openApiParameter` of
 * core/path-pattern.ts (a trailing `*` becomes a catch-all parameter: `/files/*` → `/files/{path}`). Two endpoints
 * whose paths differ only in parameter names (`/a/{x}`, `/a/{y}`) would be one OpenAPI path: the later one is left
 * out of both documents.
 *
 * Price: the accepts in a known USDC (6 decimals; the Sandbox USDC or a USDC of @x402/evm's default asset table)
 * give the price in dollars, currency `USD`: one amount → `{ mode: 'fixed', amount }`, several → `{ mode: 'dynamic',
 * min, max }`; an `upto` accept's amount is a maximum, so its price is dynamic from 0. Accepts in other tokens give no price (their unit is unknown); without any USDC accept `price` is left
 * out and `protocols` stays.
 *
 * /.well-known/x402 lists the same operations as absolute URLs on the requested host, with the OpenAPI path as
 * written (`http://host/files/{path}`): the template names the resource, and requested as is it reaches the paid route.
 */
import { usdcDecimals } from '../../core/sandbox-usdc.js'
import type { ApiRow, EndpointRow } from '../db/index.js'
import { openApiParameter, openApiPath, type OpenApiPath } from '../../core/path-pattern.js'
import { inferredRequestComment, type JsonSchema } from '../upstream/index.js'

export type Accept = {
  scheme?: string
  network: string
  asset: string
  amount: string
  extra?: Record<string, unknown>
}

export type DocumentInput = {
  api: ApiRow
  /** Discoverable endpoints only (enabled, no ttl), in the order they should appear. */
  endpoints: EndpointRow[]
  /** The origin the document was asked at (`https://shop.example.com`, `http://shop.localhost:4020`). */
  origin: string
  contactEmail: string | null
  isUsdc(network: string, asset: string): boolean
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Atomic USDC units as dollars: "10000" → "0.01", "1500000" → "1.50", "1" → "0.000001". */
export function usdcDollars(atomic: string): string {
  const value = BigInt(atomic)
  const scale = 10n ** BigInt(usdcDecimals)
  const fraction = (value % scale).toString().padStart(usdcDecimals, '0').replace(/0+$/, '').padEnd(2, '0')
  return `${value / scale}.${fraction}`
}

/**
 * `x-payment-info` of an endpoint's accepts: a fixed price, or a dynamic one from its lowest to its highest option; an
 * `upto` option's amount is a maximum (the upstream settles what was used, down to 0), so it makes the price dynamic
 * from 0.
 */
export function paymentInfo(accepts: Accept[], isUsdc: DocumentInput['isUsdc']) {
  const usdc = accepts.filter((a) => isUsdc(a.network, a.asset))
  const bounds = usdc.flatMap((a) => (a.scheme === 'upto' ? [0n, BigInt(a.amount)] : [BigInt(a.amount)]))
  const amounts = [...new Set(bounds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const protocols = [{ x402: {} }]
  if (amounts.length === 0) return { protocols }
  if (amounts.length === 1)
    return { price: { mode: 'fixed', currency: 'USD', amount: usdcDollars(String(amounts[0])) }, protocols }
  return {
    price: {
      mode: 'dynamic',
      currency: 'USD',
      min: usdcDollars(String(amounts[0])),
      max: usdcDollars(String(amounts.at(-1))),
    },
    protocols,
  }
}

const parseSchema = (text: string | null): JsonSchema | null => {
  if (text === null) return null
  const value = JSON.parse(text) as unknown
  return isRecord(value) ? value : null
}

/** svc's inferred request envelope: `{ properties: { path, body } }`, marked by its `$comment`. */
const isInferredEnvelope = (schema: JsonSchema) =>
  typeof schema.$comment === 'string' && schema.$comment.startsWith(inferredRequestComment.split(':')[0]!)

function operation(endpoint: EndpointRow, route: OpenApiPath, isUsdc: DocumentInput['isUsdc']) {
  const request = parseSchema(endpoint.request_schema)
  const envelope = request && isInferredEnvelope(request) ? request : null
  const envelopeParts = isRecord(envelope?.properties) ? envelope.properties : {}
  const pathSchemas =
    isRecord(envelopeParts.path) && isRecord(envelopeParts.path.properties) ? envelopeParts.path.properties : {}
  const body = envelope ? (isRecord(envelopeParts.body) ? envelopeParts.body : null) : request
  const bodyRequired = envelope ? Array.isArray(envelope.required) && envelope.required.includes('body') : undefined
  const response = parseSchema(endpoint.response_schema)
  const accepts = JSON.parse(endpoint.accepts) as Accept[]

  const parameters = route.parameters.map((parameter) => {
    const schema = pathSchemas[parameter.name]
    return openApiParameter(parameter, !parameter.catchAll && isRecord(schema) ? schema : undefined)
  })
  return {
    summary: `${endpoint.method} ${endpoint.path_pattern}`,
    ...(endpoint.description ? { description: endpoint.description } : {}),
    security: [],
    'x-payment-info': paymentInfo(accepts, isUsdc),
    // An endpoint that charges before it calls its upstream says so (its 402's accepts say extra.paymentFlow).
    ...(accepts.some((a) => a.extra?.paymentFlow === 'upfront') ? { 'x-payment-flow': 'upfront' } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(body
      ? {
          requestBody: {
            ...(bodyRequired ? { required: true } : {}),
            content: { 'application/json': { schema: body } },
          },
        }
      : {}),
    responses: {
      '200': {
        description: 'Successful response',
        ...(response ? { content: { 'application/json': { schema: response } } } : {}),
      },
      '402': {
        description: 'Payment Required',
        headers: {
          'PAYMENT-REQUIRED': { description: 'base64 of the x402 v2 PaymentRequired JSON', schema: { type: 'string' } },
        },
      },
    },
  }
}

/** The operations of the documents: `[openapi path, method, operation]`, duplicates (see module comment) left out. */
function operations(input: DocumentInput) {
  const byShape = new Map<string, string>()
  const seen = new Set<string>()
  const result: { path: string; method: string; operation: ReturnType<typeof operation> }[] = []
  for (const endpoint of input.endpoints) {
    const route = openApiPath(endpoint.path_pattern)
    const shape = route.path.replace(/\{[^}]*\}/g, '{}')
    const method = endpoint.method.toLowerCase()
    if ((byShape.get(shape) ?? route.path) !== route.path || seen.has(`${method} ${route.path}`)) continue
    byShape.set(shape, route.path)
    seen.add(`${method} ${route.path}`)
    result.push({ path: route.path, method, operation: operation(endpoint, route, input.isUsdc) })
  }
  return result
}

/** GET /openapi.json */
export function buildOpenApiDocument(input: DocumentInput) {
  const { api } = input
  const paths: Record<string, Record<string, unknown>> = {}
  for (const { path, method, operation } of operations(input)) (paths[path] ??= {})[method] = operation
  return {
    openapi: '3.1.0',
    info: {
      title: api.name,
      version: api.openapi_version || '1.0.0',
      ...(api.discovery_guidance !== null ? { 'x-guidance': api.discovery_guidance } : {}),
      ...(input.contactEmail ? { contact: { email: input.contactEmail } } : {}),
    },
    servers: [{ url: input.origin }],
    paths,
  }
}

/** GET /.well-known/x402(.json): the origin manifest of x402scan's DISCOVERY.md. */
export function buildWellKnown(input: DocumentInput) {
  const resources = [...new Set(operations(input).map(({ path }) => `${input.origin}${path}`))]
  return {
    version: 1,
    resources,
    ...(input.api.discovery_guidance !== null ? { instructions: input.api.discovery_guidance } : {}),
  }
}
