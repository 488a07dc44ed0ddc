import type { x402ResourceServer } from '@x402/core/server'
import type { PaymentRequirements } from '@x402/core/types'
import { encodePaymentRequiredHeader } from '@x402/core/http'
import { EIP2612_GAS_SPONSORING, declareEip2612GasSponsoringExtension } from '@x402/extensions'
import { PAYMENT_IDENTIFIER, declarePaymentIdentifierExtension } from '@x402/extensions/payment-identifier'
import { routePatternOf } from '../../core/path-pattern.js'
import type { ApiRow } from '../db/tables.js'
import { discoveryExtension } from './bazaar-extension.js'
import type { GatewayRoute } from './endpoint-table.js'
import type { PaymentRequiredOutcome } from './payment-outcome.js'
import { FacilitatorUnavailableError } from './resource-servers.js'

/** What a route asks for under one facilitator: its requirements and the declared Bazaar extension. */
export type Offer = {
  requirements: PaymentRequirements[]
  declaredExtensions: Record<string, unknown>
  /**
   * Unpaid 402s by resource URL, emptied when full. A Map, not an LRUCache: there is one per route and facilitator,
   * and lru-cache allocates room for all its entries up front.
   */
  unpaid: Map<string, PaymentRequiredOutcome>
}

/** The resource a 402 names: its URL, the normalized request path, and a description. */
export type PaidResource = { url: string; path: string; description: string }

const unpaidCacheSize = 256
/** The `error` of a 402 that asks for a first payment. */
const paymentRequiredMessage = 'payment required'

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
    throw new FacilitatorUnavailableError(
      `the facilitator cannot take any payment option of ${route.endpoint.method} ${route.endpoint.path_pattern} (${problems.join('; ')})`,
    )
  return {
    requirements,
    declaredExtensions: {
      ...discoveryExtension(route.endpoint),
      ...gasSponsoring(server, requirements),
      // A buyer who sends an id gets a retry's answer again without paying twice (payment-identifier.ts); required
      // when the seller says so.
      [PAYMENT_IDENTIFIER]: declarePaymentIdentifierExtension(route.endpoint.payment_identifier_required === 1),
    },
    unpaid: new Map(),
  }
}

/**
 * The `eip2612GasSponsoring` extension when an option pays through Permit2 and its facilitator sponsors the approval:
 * a buyer whose Permit2 allowance is short then signs an EIP-2612 permit with the payment, and needs no approval
 * transaction (nor gas) of its own.
 */
function gasSponsoring(server: x402ResourceServer, requirements: PaymentRequirements[]): Record<string, unknown> {
  const sponsored = requirements.some(
    (option) =>
      option.extra?.assetTransferMethod === 'permit2' &&
      server.getFacilitatorExtensions(2, option.network, option.scheme).includes(EIP2612_GAS_SPONSORING.key),
  )
  return sponsored ? declareEip2612GasSponsoringExtension() : {}
}

/**
 * The 402 of a request: x402 v2 PaymentRequired built by the resource server (`createPaymentRequiredResponse`, with
 * the Bazaar extension enriched for this method and path), encoded with `encodePaymentRequiredHeader`, `error` saying
 * why (a refused payment), or {@link paymentRequiredMessage} when none was sent. Those unpaid 402s are cached per
 * resource URL (they depend on nothing else) and come back without a promise.
 */
export function paymentRequired(
  server: x402ResourceServer,
  route: GatewayRoute,
  offer: Offer,
  resource: PaidResource,
  error?: string,
): PaymentRequiredOutcome | Promise<PaymentRequiredOutcome> {
  if (error === undefined) {
    const cached = offer.unpaid.get(resource.url)
    if (cached) return cached
  }
  return buildPaymentRequired(server, route, offer, resource, error)
}

async function buildPaymentRequired(
  server: x402ResourceServer,
  route: GatewayRoute,
  offer: Offer,
  resource: PaidResource,
  error: string | undefined,
): Promise<PaymentRequiredOutcome> {
  const extensions = server.enrichExtensions(offer.declaredExtensions, {
    method: route.endpoint.method,
    adapter: { getPath: () => resource.path },
    routePattern: routePatternOf(route.endpoint.path_pattern),
  })
  const described = { url: resource.url, description: resource.description, mimeType: 'application/json' }
  const built = await server.createPaymentRequiredResponse(
    offer.requirements,
    described,
    error ?? paymentRequiredMessage,
    extensions,
  )
  const outcome: PaymentRequiredOutcome = {
    type: 'payment-required',
    header: encodePaymentRequiredHeader(built),
    body: JSON.stringify(built),
  }
  if (error === undefined) {
    if (offer.unpaid.size >= unpaidCacheSize) offer.unpaid.clear()
    offer.unpaid.set(resource.url, outcome)
  }
  return outcome
}
