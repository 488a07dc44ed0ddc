/**
 * The path a request is matched and forwarded with: dot segments resolved (`/free/../paid` is `/paid`, also when
 * encoded as `%2e`), so a cheap pattern cannot reach a dearer route of an upstream that normalizes paths.
 * Returns undefined for something that is not an origin-form path.
 */
export function normalizePath(rawPath: string): string | undefined {
  if (!rawPath.startsWith('/') || rawPath.startsWith('//')) return undefined
  if (!rawPath.includes('.') && !/%2e/i.test(rawPath)) return rawPath
  try {
    return new URL(rawPath, 'http://gateway.invalid').pathname
  } catch {
    return undefined
  }
}
