/*
 * The 402 a route answers: its offer under a facilitator (`offerFor`: the requirements and the extensions declared
 * with them: Bazaar discovery, gas sponsoring, offer receipts, payment-identifier), the PaymentRequired built from it
 * (`paymentRequired`), the reason fields of a refused payment (`reasonFields`), and the install's signer of the offers
 * and of the receipts of the answers paid (`createOfferReceipts`).
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto'
import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentPayload, PaymentRequirements, ResourceServerExtension, SettleResponse } from '@x402/core/types'
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { cutText, echoedValueLimit, errorMessageLimit } from '../../core/http.js'
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension } from '@x402/extensions/payment-identifier'
import { routePatternOf } from '../../core/path-pattern.js'
import type { ApiRow, EndpointRow } from '../db/index.js'
import {
  OFFER_RECEIPT,
  createJWSOfferReceiptIssuer,
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  type JWSSigner,
  type OfferReceiptDeclaration,
} from '@x402/extensions/offer-receipt'
import { encodeBase58 } from '@x402/extensions/sign-in-with-x'
import { signInChallenge } from './sign-in-with-x.js'
import { deadlineGridSeconds } from '../../core/auth-capture/deadlines.js'
import { type Clock, machineClock } from '../../core/clock.js'
import type { GatewayRoute } from './endpoint-table.js'
import { FacilitatorUnavailableError } from './facilitator-calls.js'
import { declareDiscoveryExtension } from '@x402/extensions/bazaar'
import { inferredRequestComment, type JsonSchema } from '../upstream/index.js'
import {
  EIP2612_GAS_SPONSORING,
  ERC20_APPROVAL_GAS_SPONSORING,
  declareEip2612GasSponsoringExtension,
  declareErc20ApprovalGasSponsoringExtension,
} from '@x402/extensions'

/** What a route asks for under one facilitator: its requirements and the declared Bazaar extension. */
export type Offer = {
  requirements: PaymentRequirements[]
  declaredExtensions: Record<string, unknown>
  /**
   * Unpaid 402s by resource URL, emptied when full, each good until `freshUntil` (machine ms: half the life of its
   * signed offers). A Map, not an LRUCache: there is one per route and facilitator, and lru-cache allocates room for
   * all its entries up front.
   */
  unpaid: Map<string, { outcome: PaymentRequiredOutcome; freshUntil: number }>
  /** The networks of its requirements (sign-in-with-x's supported chains). */
  networks: string[]
}

/**
 * Why a payment was refused, beyond the 402's `error`: the scheme's reason fields for the JSON body (`invalidReason`
 * and `invalidMessage` of a verify, `errorReason` and `errorMessage` of a settle) and, for a refused settlement, its
 * encoded `SettleResponse` for the `PAYMENT-RESPONSE` header (where x402 puts a settle failure).
 */
export type Refusal = {
  fields?: Record<string, string>
  paymentResponse?: string | undefined
  /** The payment refused, for the schemes that add to its 402 (batch-settlement's corrective channel state). */
  payload?: PaymentPayload | undefined
}

/**
 * A 402: `PAYMENT-REQUIRED` header and the same PaymentRequired as the JSON body (with the scheme's reason fields
 * when a payment was refused), and `PAYMENT-RESPONSE` when a settlement was refused.
 */
export type PaymentRequiredOutcome = {
  type: 'payment-required'
  header: string
  body: string
  paymentResponse?: string
  /** The endpoint asked for, `GET /weather/{city}` (the browser's paywall page shows it). */
  route?: string
}

/** The resource a 402 names: its URL, the normalized request path, and a description. */
export type PaidResource = { url: string; path: string; description: string }

/**
 * What a 402 is built from: the route, its offer under the resource server that judges its payments, and the resource
 * asked for (attempt.ts's `Attempt` is one).
 */
export type Offered = { server: x402ResourceServer; route: GatewayRoute; offer: Offer; resource: PaidResource }

const unpaidCacheSize = 256
/**
 * The `error` of a 402 that asks for a first payment. A v1 client (x402-fetch 1.x) parses this body with its v1
 * schema and throws a ZodError that names nothing actionable; this text is what its user finds when they look at
 * the answer it choked on. One constant string: the unpaid 402 is cached and benchmarked.
 */
export const paymentRequiredMessage =
  'payment required (x402 v2: pay with @x402/fetch or @x402/axios and @x402/evm 2.x; x402 v1 packages such as x402-fetch, x402-axios, x402-express 1.x cannot pay it)'

/**
 * The route's offer under `server`, built once per route version and facilitator: each accept option becomes
 * `PaymentRequirements` through `buildPaymentRequirements` with an explicit `{amount, asset, extra}` price and the
 * API's pay-to address. Options the facilitator does not support are left out; none left is a 503.
 */
export function offerFor(
  route: GatewayRoute,
  server: x402ResourceServer,
  api: ApiRow,
  /** svc's clock: an auth-capture route's offer is rebuilt each deadline step (see {@link escrowOfferFor}). */
  clock: Clock = machineClock,
): Promise<Offer> {
  if (route.escrow !== undefined) return escrowOfferFor(route, server, api, clock)
  let offer = route.derived.get(server) as Promise<Offer> | undefined
  if (!offer) {
    offer = buildOffer(route, server, api)
    offer.catch(() => route.derived.delete(server))
    route.derived.set(server, offer)
  }
  return offer
}

/**
 * An auth-capture route's offer: its requirements carry absolute capture and refund deadlines on a 60 s grid of svc's
 * clock (core/auth-capture/server-scheme.ts `gridDeadline`), so the offer is built once per grid step (kept by the
 * route under its resource server, with the step it is of) and its unpaid 402s last no longer than the step.
 */
function escrowOfferFor(route: GatewayRoute, server: x402ResourceServer, api: ApiRow, clock: Clock) {
  const step = Math.floor(clock.now() / (deadlineGridSeconds * 1000))
  const kept = route.derived.get(server) as { step: number; offer: Promise<Offer> } | undefined
  if (kept && kept.step === step) return kept.offer
  const offer = buildOffer(route, server, api)
  const entry = { step, offer }
  offer.catch(() => route.derived.get(server) === entry && route.derived.delete(server))
  route.derived.set(server, entry)
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
    throw new FacilitatorUnavailableError(
      `the facilitator cannot take any payment option of ${route.endpoint.method} ${route.endpoint.path_pattern} (${problems.join('; ')})`,
    )
  return {
    requirements,
    declaredExtensions: {
      ...discoveryExtension(route.endpoint),
      ...gasSponsoring(server, requirements),
      ...offerReceiptDeclaration,
      // A buyer who sends an id gets a retry's answer again without paying twice (identifier.ts); required
      // when the seller says so.
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(route.endpoint.payment_identifier_required === 1),
    },
    unpaid: new Map(),
    networks: [...new Set(requirements.map((option) => option.network))],
  }
}

/** The longest PAYMENT-REQUIRED header that keeps its signed offers (characters; base64). */
const paymentRequiredHeaderLimit = 8 * 1024

/**
 * The 402 of a request: x402 v2 PaymentRequired built by the resource server (`createPaymentRequiredResponse`, with
 * the Bazaar extension enriched for this method and path, and the offers signed by the offer-receipt extension),
 * encoded with `encodePaymentRequiredHeader`, `error` saying why (a refused payment), or
 * {@link paymentRequiredMessage} when none was sent. Those unpaid 402s are cached per resource URL (they depend on
 * nothing else) while their offers are fresh and come back without a promise, except on endpoints with
 * sign-in-with-x, whose every 402 carries a fresh challenge (a nonce is good once).
 */
export function paymentRequired(
  offered: Offered,
  error?: string,
  refusal?: Refusal,
): PaymentRequiredOutcome | Promise<PaymentRequiredOutcome> {
  if (error === undefined) {
    const cached = cachedPaymentRequired(offered.offer, offered.resource.url)
    if (cached) return cached
  }
  return buildPaymentRequired(offered, error, refusal)
}

/** The unpaid 402 of `resourceUrl` under `offer` when it is cached and fresh (see {@link paymentRequired}). */
export function cachedPaymentRequired(offer: Offer, resourceUrl: string): PaymentRequiredOutcome | undefined {
  const cached = offer.unpaid.get(resourceUrl)
  return cached && cached.freshUntil > Date.now() ? cached.outcome : undefined
}

async function buildPaymentRequired(
  { server, route, offer, resource }: Offered,
  error: string | undefined,
  refusal: Refusal | undefined,
): Promise<PaymentRequiredOutcome> {
  const extensions = {
    ...server.enrichExtensions(offer.declaredExtensions, {
      method: route.endpoint.method,
      adapter: { getPath: () => resource.path },
      routePattern: routePatternOf(route.endpoint.path_pattern),
    }),
    ...signInChallenge(route.endpoint, offer.networks, resource.url),
  }
  const described = { url: resource.url, description: resource.description, mimeType: 'application/json' }
  const built = await server.createPaymentRequiredResponse(
    offer.requirements,
    described,
    error ?? paymentRequiredMessage,
    extensions,
    undefined,
    refusal?.payload,
  )
  let header = encodePaymentRequiredHeader(built)
  // Each signed offer repeats the resource URL (twice encoded): for a very long URL they would take the header past
  // what HTTP clients accept (16 KiB for Node's), and the buyer would get no answer at all. Such a 402 goes unsigned.
  if (header.length > paymentRequiredHeaderLimit && built.extensions?.[OFFER_RECEIPT] !== undefined) {
    delete built.extensions[OFFER_RECEIPT]
    header = encodePaymentRequiredHeader(built)
  }
  // The reason fields ride beside the PaymentRequired (v2 clients read the header; people and scripts read the body).
  const outcome: PaymentRequiredOutcome = {
    type: 'payment-required',
    header,
    body: JSON.stringify(refusal?.fields ? { ...built, ...refusal.fields } : built),
    route: `${route.endpoint.method} ${route.endpoint.path_pattern}`,
  }
  if (refusal?.paymentResponse !== undefined) outcome.paymentResponse = refusal.paymentResponse
  // An endpoint with sign-in-with-x is never cached: each challenge carries its own nonce.
  if (error === undefined && route.endpoint.siwx_access_seconds === null) {
    if (offer.unpaid.size >= unpaidCacheSize) offer.unpaid.clear()
    // Offers are valid for their option's maxTimeoutSeconds: re-signed once half of the shortest has passed.
    const validMs = Math.min(...offer.requirements.map((option) => option.maxTimeoutSeconds)) * 1000
    offer.unpaid.set(resource.url, { outcome, freshUntil: Date.now() + validMs / 2 })
  }
  return outcome
}

/**
 * The scheme's reason fields of a refusal for the 402's body (`invalidReason`/`invalidMessage` of a verify,
 * `errorReason`/`errorMessage` of a settle, as x402's VerifyResponse and SettleResponse name them) and a refused
 * settlement's `PAYMENT-RESPONSE`.
 */
export function reasonFields(
  refusal: { reason?: string | undefined; message?: string | undefined; settled?: SettleResponse | undefined },
  settling: boolean,
): Refusal {
  const fields: Record<string, string> = {}
  const [reasonKey, messageKey] = settling ? ['errorReason', 'errorMessage'] : ['invalidReason', 'invalidMessage']
  if (refusal.reason !== undefined) fields[reasonKey] = cutText(String(refusal.reason), echoedValueLimit)
  if (refusal.message !== undefined) fields[messageKey] = cutText(String(refusal.message), errorMessageLimit)
  return {
    fields,
    paymentResponse: refusal.settled ? encodePaymentResponseHeader(refusal.settled) : undefined,
  }
}

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

/** The gas sponsoring extensions a Permit2 accept may name in `extra.gasSponsoring` (one only) or leave to the facilitator. */
export const gasSponsoringKeys = [EIP2612_GAS_SPONSORING.key, ERC20_APPROVAL_GAS_SPONSORING.key] as const
export type GasSponsoringKey = (typeof gasSponsoringKeys)[number]

/**
 * The gas sponsoring extensions of a 402: for each option that pays through Permit2, those its facilitator supports
 * (`eip2612GasSponsoring`: the buyer signs an EIP-2612 permit; `erc20ApprovalGasSponsoring`: the buyer signs an
 * `approve(Permit2, …)` transaction the facilitator funds and sends), narrowed to the one its `extra.gasSponsoring`
 * names. A buyer whose Permit2 allowance is short then needs no approval transaction (nor gas) of its own.
 * x402's client prefers the permit where both are declared and the option names the token's EIP-712 domain.
 */
export function gasSponsoring(
  server: x402ResourceServer,
  requirements: PaymentRequirements[],
): Record<string, unknown> {
  const declared = new Set<GasSponsoringKey>()
  for (const option of requirements) {
    if (option.extra?.assetTransferMethod !== 'permit2') continue
    const supported = server.getFacilitatorExtensions(2, option.network, option.scheme)
    const named = option.extra?.gasSponsoring
    for (const key of gasSponsoringKeys) if (supported.includes(key) && (named ?? key) === key) declared.add(key)
  }
  return {
    ...(declared.has(EIP2612_GAS_SPONSORING.key) ? declareEip2612GasSponsoringExtension() : {}),
    ...(declared.has(ERC20_APPROVAL_GAS_SPONSORING.key) ? declareErc20ApprovalGasSponsoringExtension() : {}),
  }
}

/** The gateway's signer of x402's `offer-receipt` extension: signed offers in its 402s, signed receipts on success. */
export type OfferReceipts = {
  /** The `kid` of every signature: a `did:key` of the install's Ed25519 key, so a buyer verifies without a lookup. */
  kid: string
  /** The package's extension (`createOfferReceiptExtension`), registered on the gateway's resource servers. */
  extension: ResourceServerExtension
  /** `settled` with the signed receipt of `resourceUrl` in its `extensions` (as the package's extension adds it). */
  withReceipt(settled: SettleResponse, resourceUrl: string): Promise<SettleResponse>
}

/** The offer-receipt declaration of every paid route: its receipts name the settlement's transaction. */
export const offerReceiptDeclaration: Record<string, OfferReceiptDeclaration> = declareOfferReceiptExtension({
  includeTxHash: true,
})

// PKCS#8 DER of an Ed25519 private key, before its 32-byte seed (RFC 8410).
const ed25519Pkcs8Prefix = Buffer.from('302e020100300506032b657004220420', 'hex')
// The multicodec of an Ed25519 public key (0xed, as a varint), before the key in a did:key.
const ed25519Multicodec = Uint8Array.of(0xed, 0x01)

/**
 * The offer-receipt signer of an install, from its 32-byte seed (data-dir/secrets.ts): JWS with EdDSA, `kid`
 * `did:key:z6Mk…#z6Mk…`. Offers and receipts are made by the package's issuer (`createJWSOfferReceiptIssuer`); only
 * the signature of bytes is ours (node:crypto), and the key never leaves this closure.
 */
export function createOfferReceipts(seed: Buffer): OfferReceipts {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ed25519Pkcs8Prefix, seed]),
    format: 'der',
    type: 'pkcs8',
  })
  const kid = didKeyOf(createPublicKey(privateKey))
  const signer: JWSSigner = {
    kid,
    format: 'jws',
    algorithm: 'EdDSA',
    sign: async (payload) => sign(null, payload, privateKey).toString('base64url'),
  }
  const extension = createOfferReceiptExtension(createJWSOfferReceiptIssuer(kid, signer))
  return {
    kid,
    extension,
    async withReceipt(settled, resourceUrl) {
      const enriched = await extension.enrichSettlementResponse?.(offerReceiptDeclaration[OFFER_RECEIPT], {
        result: settled,
        transportContext: { request: { adapter: { getUrl: () => resourceUrl } } },
      } as never)
      if (enriched === undefined) return settled
      return { ...settled, extensions: { ...settled.extensions, [OFFER_RECEIPT]: enriched } }
    },
  }
}

/** `did:key:z…#z…` of an Ed25519 public key (the multicodec-prefixed key in base58btc). */
function didKeyOf(publicKey: KeyObject): string {
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x ?? '', 'base64url')
  const id = `z${encodeBase58(Uint8Array.from([...ed25519Multicodec, ...raw]))}`
  return `did:key:${id}#${id}`
}
