/**
 * The checks x402's own e2e suite makes of a facilitator's bazaar (`e2e/extensions/bazaar.ts` in
 * x402-foundation/x402, `handleDiscoveryValidation`), written again here (its code is not copied): every expected
 * resource is among the items of `GET /discovery/resources?limit=1000` (by `resource` URL), an MCP tool's
 * `discoveryInfo.input` names its type, tool and transport, and `GET /discovery/search?query=http` answers the
 * search shape (`x402Version` a number, `resources` an array, `pagination.limit` a number when present,
 * `partialResults` a boolean when present).
 */
export type ExpectedResource = { url: string; toolName?: string; transport?: 'streamable-http' | 'sse' }

export type BazaarValidation = { success: boolean; missing: string[]; mismatched: string[]; errors: string[] }

type Item = { resource: string; discoveryInfo?: { input?: Record<string, unknown> } }

export async function validateFacilitatorBazaar(
  facilitatorUrl: string,
  expected: ExpectedResource[],
): Promise<BazaarValidation> {
  const errors: string[] = []
  const listing = await fetch(`${facilitatorUrl}/discovery/resources?limit=1000`)
  if (!listing.ok)
    return { success: false, missing: expected.map((e) => e.url), mismatched: [], errors: [`list ${listing.status}`] }
  const { items } = (await listing.json()) as { items: Item[] }
  const byUrl = new Map(items.map((item) => [item.resource, item]))
  const missing = expected.filter((e) => !byUrl.has(e.url)).map((e) => e.url)
  const mismatched = expected
    .filter((e) => e.toolName !== undefined && byUrl.has(e.url))
    .filter((e) => {
      const input = byUrl.get(e.url)?.discoveryInfo?.input ?? {}
      return (
        input.type !== 'mcp' ||
        input.toolName !== e.toolName ||
        (e.transport !== undefined && input.transport !== e.transport)
      )
    })
    .map((e) => e.url)

  const search = await fetch(`${facilitatorUrl}/discovery/search?query=${encodeURIComponent('http')}`)
  if (!search.ok) errors.push(`search ${search.status}`)
  else {
    const body = (await search.json()) as Record<string, any>
    if (typeof body.x402Version !== 'number') errors.push('search response missing x402Version')
    if (!Array.isArray(body.resources)) errors.push('search response missing resources array')
    if (body.pagination != null && typeof body.pagination?.limit !== 'number')
      errors.push('pagination.limit must be number when present')
    if (body.partialResults !== undefined && typeof body.partialResults !== 'boolean')
      errors.push('partialResults must be boolean when present')
  }
  return { success: !missing.length && !mismatched.length && !errors.length, missing, mismatched, errors }
}
