/**
 * What the API's page shows, built from live rows (a pure function; the handler reads the rows). Everything here
 * that the seller wrote (names, descriptions, guidance, schemas, path patterns) is untrusted text: the renderer
 * escapes it.
 */
import { openApiPath, type OpenApiPathParameter } from '../../../core/path-pattern.js'
import { sandboxNetwork } from '../../../core/sandbox-usdc.js'
import { twinSpecs } from '../../../core/twins.js'
import type { Environment } from '../../../core/hosts.js'
import type { Accept, ApiRow, EndpointRow } from '../../db/index.js'
import { usdcDollars } from '../discovery-openapi.js'

/** One way to pay an endpoint: an accept option in words. */
export type PagePrice = {
  scheme: string
  /** `$0.01`, `up to $0.05`, or `12345 atomic units` for a token that is not a known USDC. */
  amount: string
  /** The token: `USDC`, or its address. */
  asset: string
  network: string
  /** The network in words: `svc Sandbox`, `base-sepolia twin`, else the CAIP-2 id. */
  networkName: string
  /** How the token moves (`extra.assetTransferMethod`): `EIP-3009` (the default of `exact`) or `Permit2`. */
  transferMethod: string
  /** An endpoint that charges before it calls its upstream (`extra.paymentFlow: upfront`). */
  upfront: boolean
}

export type PageEndpoint = {
  method: string
  pathPattern: string
  /** The pattern as a URL template (`/files/*` → `/files/{path}`), what the try-it form fills in. */
  template: string
  parameters: OpenApiPathParameter[]
  description: string | null
  prices: PagePrice[]
  /** Pretty-printed JSON Schemas, or null when the seller gave none. */
  requestSchema: string | null
  responseSchema: string | null
  /** Where the schemas come from: `inferred` (svc probed the upstream), `openapi` or `manual` (the seller). */
  schemaSource: EndpointRow['schema_source']
  /** The try-it form asks for a JSON body (POST, PUT, PATCH). */
  takesBody: boolean
}

export type ApiPageModel = {
  name: string
  environment: Environment
  guidance: string | null
  endpoints: PageEndpoint[]
  /** The discovery documents the gateway serves for this API (same-origin paths). */
  documents: { label: string; href: string; testId: string }[]
  /** What the page's URL has before the gateway's own paths: '' on a gateway host, `/gateway/{host}` on its direct URL. */
  base: string
}

export type ApiPageInput = {
  api: ApiRow
  /** The endpoints to list (enabled, not ephemeral), in order. */
  endpoints: EndpointRow[]
  isUsdc(network: string, asset: string): boolean
  /** The direct URL's `/gateway/{host}` (server/app.ts: directGatewayRoute). @defaultValue '' (a gateway host) */
  base?: string | undefined
}

/** The discovery documents of a gateway host (server/gateway/discovery-documents.ts serves them). */
export const discoveryDocuments = [
  { label: 'OpenAPI 3.1', href: '/openapi.json', testId: 'discovery-openapi' },
  { label: 'x402 origin manifest', href: '/.well-known/x402', testId: 'discovery-well-known' },
]

/** A schema longer than this (characters, pretty-printed) is cut: the page stays light. */
const schemaTextLimit = 20_000

export function buildApiPageModel(input: ApiPageInput): ApiPageModel {
  const { api } = input
  return {
    name: api.name,
    environment: api.environment,
    guidance: api.discovery_guidance,
    endpoints: input.endpoints.map((endpoint) => pageEndpoint(endpoint, input.isUsdc)),
    documents: input.base
      ? discoveryDocuments.map((d) => ({ ...d, href: `${input.base}${d.href}` }))
      : discoveryDocuments,
    base: input.base ?? '',
  }
}

function pageEndpoint(endpoint: EndpointRow, isUsdc: ApiPageInput['isUsdc']): PageEndpoint {
  const { path, parameters } = openApiPath(endpoint.path_pattern)
  const accepts = JSON.parse(endpoint.accepts) as Accept[]
  return {
    method: endpoint.method,
    pathPattern: endpoint.path_pattern,
    template: path,
    parameters,
    description: endpoint.description,
    prices: accepts.map((accept) => pagePrice(accept, isUsdc)),
    requestSchema: prettySchema(endpoint.request_schema),
    responseSchema: prettySchema(endpoint.response_schema),
    schemaSource: endpoint.schema_source,
    takesBody: ['POST', 'PUT', 'PATCH'].includes(endpoint.method),
  }
}

function pagePrice(accept: Accept, isUsdc: ApiPageInput['isUsdc']): PagePrice {
  const usdc = isUsdc(accept.network, accept.asset)
  const amount = usdc ? `$${usdcDollars(accept.amount)}` : `${accept.amount} atomic units`
  const method = accept.extra?.assetTransferMethod ?? (accept.scheme === 'upto' ? 'permit2' : 'eip3009')
  return {
    scheme: accept.scheme,
    amount: accept.scheme === 'upto' ? `up to ${amount}` : amount,
    asset: usdc ? 'USDC' : accept.asset,
    network: accept.network,
    networkName: networkName(accept.network),
    transferMethod: method === 'permit2' ? 'Permit2' : method === 'eip3009' ? 'EIP-3009' : String(method),
    upfront: accept.extra?.paymentFlow === 'upfront',
  }
}

function networkName(network: string): string {
  if (network === sandboxNetwork) return 'svc Sandbox'
  const twin = Object.values(twinSpecs).find((spec) => spec.network === network)
  return twin ? `${twin.name} twin` : network
}

function prettySchema(text: string | null): string | null {
  if (text === null) return null
  let pretty: string
  try {
    pretty = JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    pretty = text
  }
  return pretty.length > schemaTextLimit ? `${pretty.slice(0, schemaTextLimit)}\n…` : pretty
}
