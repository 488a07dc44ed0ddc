/**
 * True for an absolute http(s) URL. With `bare`, also without query or fragment: a base URL that paths are
 * appended to (an upstream, a control plane).
 */
export function isHttpUrl(value: string, options: { bare?: boolean } = {}): boolean {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return false
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return false
  return !options.bare || (url.search === '' && url.hash === '')
}
