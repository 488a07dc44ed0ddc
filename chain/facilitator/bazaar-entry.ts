import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { BAZAAR, extractDiscoveryInfo, type DiscoveryInfo, type DiscoveryResource } from '@x402/extensions/bazaar'
import { cutText } from '../../core/http.js'
import { discoveryExtensionProblem } from './bazaar-validation.js'

/** The size limits of a catalog entry: a payer writes what the catalog keeps, so every part of it is bounded. */
export const catalogLimits = {
  /** The `bazaar` extension (info and schema) as JSON, in characters. */
  extensionChars: 16_384,
  /** The whole entry (the extension, the accepts, the metadata) as JSON, in characters. */
  entryChars: 32_768,
  resourceUrlChars: 2048,
  descriptionChars: 500,
  mimeTypeChars: 100,
} as const

/**
 * One resource of the bazaar catalog, as `GET /discovery/resources` lists it: `@x402/extensions`' `DiscoveryResource`
 * (resource, type, x402Version, accepts, lastUpdated, description, mimeType, serviceName, tags, iconUrl, extensions),
 * with `discoveryInfo` (what x402's e2e suite reads) and `metadata` (the item shape of x402's first bazaar and of
 * x402 #2582) beside it.
 */
export type CatalogItem = DiscoveryResource & {
  discoveryInfo: DiscoveryInfo
  metadata: Record<string, unknown>
}

/** A catalog entry: its key (one per resource and method or tool), what it is filtered by, and the item. */
export type CatalogEntry = {
  key: string
  type: string
  payTo: string
  scheme: string
  network: string
  /** Milliseconds since the epoch: the entry's `lastUpdated`, and the order of eviction (oldest first). */
  updatedAt: number
  item: CatalogItem
}

/** What a payment makes of the catalog: an entry, a refusal saying why, or nothing (no bazaar extension). */
export type CatalogVerdict = { entry: CatalogEntry } | { rejected: string } | undefined

/**
 * The catalog entry of a settled payment, by `@x402/extensions`' own facilitator helpers: the spec's
 * invariants (`validateDiscoveryExtensionSpec`) and the info validated against its schema (`validateDiscoveryExtension`'s
 * rules, its schema compiled once: chain/facilitator/bazaar-validation.ts), then `extractDiscoveryInfo` (the
 * canonical URL, routeTemplate checked, the service metadata sanitized). Only the `bazaar` extension is echoed: the payload's other extensions (a sign-in
 * signature, a payment id) are the buyer's, not the listing's.
 */
export function catalogEntryOf(
  payload: PaymentPayload,
  requirements: PaymentRequirements,
  now: number,
): CatalogVerdict {
  if (payload.x402Version !== 2) return undefined
  const extension = payload.extensions?.[BAZAAR.key]
  if (extension === undefined) return undefined
  if (typeof extension !== 'object' || extension === null || Array.isArray(extension))
    return { rejected: 'the bazaar extension is not an object' }
  const extensionJson = JSON.stringify(extension)
  if (extensionJson.length > catalogLimits.extensionChars)
    return {
      rejected: `the bazaar extension is ${extensionJson.length} characters of JSON, more than ${catalogLimits.extensionChars}`,
    }
  const invalid = discoveryExtensionProblem(extension as Record<string, unknown>)
  if (invalid) return { rejected: `the bazaar extension is invalid: ${invalid}` }
  const discovered = safely(() => extractDiscoveryInfo(payload, requirements, false))
  if (!discovered) return { rejected: "the payment's resource.url is not a URL" }
  const resource = discovered.resourceUrl
  if (resource.length > catalogLimits.resourceUrlChars)
    return { rejected: `the resource URL is longer than ${catalogLimits.resourceUrlChars} characters` }
  const type = discovered.discoveryInfo.input.type
  const action = 'toolName' in discovered ? discovered.toolName : (discovered.method ?? '')
  const described = {
    ...(discovered.description ? { description: cutText(discovered.description, catalogLimits.descriptionChars) } : {}),
    ...(discovered.mimeType ? { mimeType: cutText(discovered.mimeType, catalogLimits.mimeTypeChars) } : {}),
    ...(discovered.serviceName ? { serviceName: discovered.serviceName } : {}),
    ...(discovered.tags ? { tags: discovered.tags } : {}),
    ...(discovered.iconUrl ? { iconUrl: discovered.iconUrl } : {}),
  }
  const item: CatalogItem = {
    resource,
    type,
    x402Version: payload.x402Version,
    // The latest payment's terms only: a resource's entry never accumulates the accepts of earlier payments.
    accepts: [requirements],
    lastUpdated: new Date(now).toISOString(),
    ...described,
    extensions: { [BAZAAR.key]: extension },
    discoveryInfo: discovered.discoveryInfo,
    metadata: {
      ...described,
      ...('toolName' in discovered ? { toolName: discovered.toolName } : { method: discovered.method }),
      ...('routeTemplate' in discovered && discovered.routeTemplate ? { routeTemplate: discovered.routeTemplate } : {}),
    },
  }
  const itemChars = JSON.stringify(item).length
  if (itemChars > catalogLimits.entryChars)
    return { rejected: `the entry is ${itemChars} characters of JSON, more than ${catalogLimits.entryChars}` }
  return {
    entry: {
      key: `${type} ${action} ${resource}`,
      type,
      payTo: requirements.payTo,
      scheme: requirements.scheme,
      network: requirements.network,
      updatedAt: now,
      item,
    },
  }
}

function safely<T>(read: () => T): T | undefined {
  try {
    return read()
  } catch {
    return undefined
  }
}
