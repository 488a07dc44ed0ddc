/**
 * Path patterns of endpoints (`/weather/{city}`, `/files/*`, `/status`) compiled to matchers, and the order in
 * which they are tried: the most specific pattern wins.
 */
export type CompiledPattern = {
  method: string
  pattern: string
  regex: RegExp
  /** Whole literal segments (`/users/me` has 2). */
  literals: number
  /** `{name}` segments. */
  params: number
  /** Ends with `*` (any rest). */
  wildcard: boolean
  /** Characters of literal text, the last tie-breaker between wildcards (`/files/img*` beats `/files/*`). */
  literalChars: number
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Compiles a pattern the control plane accepted (see `pathPatternProblem`): `/` then segments, each literal or a
 * whole `{name}`; a trailing `*` matches any rest, across segments (`/files/*` matches `/files/` and `/files/a/b`,
 * not `/files`). Literal segments compare exactly, case-sensitively, as the path is sent (percent-encoding kept).
 */
export function compilePattern(method: string, pattern: string): CompiledPattern {
  const wildcard = pattern.endsWith('*')
  const rest = wildcard ? pattern.slice(0, -1) : pattern
  const segments = rest.split('/').slice(1)
  let literals = 0
  let params = 0
  let literalChars = 0
  const parts = segments.map((segment, index) => {
    if (/^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(segment)) {
      params++
      return '([^/]+)'
    }
    // The segment a wildcard continues (`img` of `/files/img*`) is a prefix, not a whole literal segment.
    if (segment !== '' && !(wildcard && index === segments.length - 1)) literals++
    literalChars += segment.length
    return escapeRegex(segment)
  })
  const regex = new RegExp(`^/${parts.join('/')}${wildcard ? '.*' : ''}$`)
  return { method: method.toUpperCase(), pattern, regex, literals, params, wildcard, literalChars }
}

/**
 * Negative when `a` is more specific than `b`: more literal segments first; then without a wildcard before with
 * one; then more parameters; then more literal text; finally the pattern text, so the order is total and stable.
 */
export function compareSpecificity(a: CompiledPattern, b: CompiledPattern): number {
  return (
    b.literals - a.literals ||
    Number(a.wildcard) - Number(b.wildcard) ||
    b.params - a.params ||
    b.literalChars - a.literalChars ||
    (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0)
  )
}

/** The first of `candidates` (already sorted by {@link compareSpecificity}) that matches method and path. */
export function findRoute<T extends { compiled: CompiledPattern }>(candidates: readonly T[], method: string, path: string): T | undefined {
  for (const candidate of candidates) {
    if (candidate.compiled.method === method && candidate.compiled.regex.test(path)) return candidate
  }
  return undefined
}

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
