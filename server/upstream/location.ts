/** Response headers whose URL can name the upstream's origin. */
const urlHeaders = ['location', 'content-location'] as const

/** An absolute URL (`http://…`) or a scheme-relative one (`//host/…`). */
const isAbsoluteReference = (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value) || value.startsWith('//')

/**
 * `Location` and `Content-Location` as a buyer may see them: an absolute URL on the upstream's own origin (a redirect
 * to `http://127.0.0.1:5000/v1/login`) would show the buyer where the upstream is, and a buyer who reaches it skips
 * the paywall. Such a URL becomes the path the gateway serves it at (`/login`: the path under the API's base path,
 * with its query and fragment); one outside the base path, or that does not parse, is dropped. Relative URLs and
 * other origins pass unchanged. On a direct URL (`baseUrl` `/gateway/{host}`, server/gateway/direct-url.ts) a path
 * from the root (`/login`, the upstream's or the one made here) gets that prefix, so the buyer stays on the direct
 * URL. Changes `headers` in place.
 */
export function hideUpstreamOrigin(
  headers: Record<string, string | string[]>,
  upstream: { origin: string; basePath: string },
  baseUrl = '',
): void {
  for (const name of urlHeaders) {
    const value = headers[name]
    if (value === undefined) continue
    const kept = (Array.isArray(value) ? value : [value])
      .map((one) => asSeenByBuyer(one, upstream))
      .filter((one) => one !== undefined)
      .map((one) => (baseUrl && /^\/(?!\/)/.test(one.trim()) ? `${baseUrl}${one.trim()}` : one))
    if (kept.length === 0) delete headers[name]
    else headers[name] = Array.isArray(value) ? kept : kept[0]!
  }
}

function asSeenByBuyer(value: string, upstream: { origin: string; basePath: string }): string | undefined {
  const trimmed = value.trim()
  if (!isAbsoluteReference(trimmed)) return value
  let url: URL
  try {
    url = new URL(trimmed, upstream.origin)
  } catch {
    return undefined
  }
  if (url.origin !== upstream.origin) return value
  const { basePath } = upstream
  if (basePath && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) return undefined
  // One leading slash: `//host` would read as another origin.
  return `${url.pathname.slice(basePath.length).replace(/^\/+/, '/') || '/'}${url.search}${url.hash}`
}
