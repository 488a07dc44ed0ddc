import { HTTPFacilitatorClient } from '@x402/core/http'
import { errorCode, SvcApiError } from '../core/errors.js'
import {
  withBazaar,
  type DiscoveryResource,
  type DiscoveryResourcesResponse,
  type ListDiscoveryResourcesParams,
} from '@x402/extensions/bazaar'

export type { DiscoveryResource, DiscoveryResourcesResponse, ListDiscoveryResourcesParams }

/**
 * A facilitator's bazaar catalog, read as buyers' agents read it: `withBazaar(new HTTPFacilitatorClient({ url }))`
 * and its `listResources` (`GET {url}/discovery/resources`). svc's own facilitator (`bazaar_url` of
 * `GET /config/local-dev`) lists what was paid through it; a public facilitator's URL shows a listing there.
 */
export async function listBazaarCatalog(
  facilitatorUrl: string,
  params: ListDiscoveryResourcesParams = {},
): Promise<DiscoveryResourcesResponse> {
  try {
    return await withBazaar(new HTTPFacilitatorClient({ url: facilitatorUrl })).extensions.bazaar.listResources(params)
  } catch (error) {
    // fetch's own failure (nothing listens, no such host) is a TypeError; the client's other errors carry the answer.
    if (error instanceof TypeError)
      throw new SvcApiError(0, `the facilitator at ${facilitatorUrl} does not answer (${errorCode(error)})`, undefined)
    const said = (String((error as Error)?.message ?? error).split('\n')[0] ?? '').slice(0, 500)
    throw new SvcApiError(502, `the facilitator at ${facilitatorUrl} did not list its catalog: ${said}`, undefined)
  }
}

/** `GET /weather/:city` or `tool search`: what an item is called on, from its discovery info. */
export function catalogAction(item: DiscoveryResource): string {
  const info = (item.extensions?.bazaar as { info?: { input?: Record<string, unknown> } } | undefined)?.info?.input
  if (info?.type === 'mcp') return `tool ${String(info.toolName ?? '')}`
  return typeof info?.method === 'string' ? info.method : item.type
}
