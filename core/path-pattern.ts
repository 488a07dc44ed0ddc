/**
 * Path patterns of endpoints (`/weather/{city}`, `/files/*`, `/status`): the one place their grammar is read.
 *
 * A pattern is `/` then segments separated by `/`. A segment is literal text or a whole `{name}` parameter (a name
 * of letters, digits and `_`, not starting with a digit; no name twice). An optional `*` as the very last character
 * matches any rest of the path, across segments: `/files/*` matches `/files/` and `/files/a/b`, not `/files`; the text
 * before it is a prefix (`/files*` matches `/files` and `/filesystem/x`). Literal segments compare exactly,
 * case-sensitively, as the path is sent (percent-encoding kept).
 *
 * - {@link pathPatternProblem} validates (the control plane's 400 messages);
 * - {@link compilePattern}, {@link compareSpecificity} and {@link findMatch} match requests (the gateway);
 * - {@link pathParameters}, {@link openApiPath}, {@link openApiParameter}, {@link routePatternOf} and
 *   {@link fillPathPattern} describe it to others (schema inference, discovery documents, x402's Bazaar extension).
 */

/** One segment of a pattern (the text between two `/`, without a trailing `*`). */
export type PatternSegment = { kind: 'literal'; text: string } | { kind: 'parameter'; name: string }

/** A pattern read into its segments; `wildcard`: it ends with `*` (the last segment is then a prefix). */
export type ParsedPathPattern = { segments: PatternSegment[]; wildcard: boolean }

/** A pattern compiled for matching (see {@link compilePattern}). */
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

/** A path parameter of the OpenAPI form of a pattern; `catchAll`: it stands for the `*` (see {@link openApiPath}). */
export type OpenApiPathParameter = { name: string; catchAll: boolean }

/** The OpenAPI path of a pattern and its path parameters, in order. */
export type OpenApiPath = { path: string; parameters: OpenApiPathParameter[] }

const segmentCharacters = /^[A-Za-z0-9\-._~!$&'()+,;=:@%]+$/
const parameterName = /^[A-Za-z_][A-Za-z0-9_]*$/
const parameterSegment = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/

/** The raw segments of a pattern (what follows the first `/`, split at `/`), its `*` taken off. */
function splitPattern(pattern: string): { segments: string[]; wildcard: boolean } {
  const wildcard = pattern.endsWith('*')
  const rest = wildcard ? pattern.slice(0, -1) : pattern
  return { segments: rest.split('/').slice(1), wildcard }
}

/**
 * What is wrong with a path pattern, or undefined: `/` then segments separated by `/`; a segment is literal or a
 * whole `{name}` parameter (no duplicates); an optional `*` as the very last character matches any rest.
 */
export function pathPatternProblem(pattern: string): string | undefined {
  if (!pattern.startsWith('/')) return 'must start with "/"'
  const { segments, wildcard } = splitPattern(pattern)
  if (segments.some((segment) => segment.includes('*'))) return '"*" is allowed only as the last character'
  const seen = new Set<string>()
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1
    if (segment === '') {
      if (last) continue
      return 'empty segment ("//")'
    }
    if (segment.includes('{') || segment.includes('}')) {
      const match = /^\{([^{}]*)\}$/.exec(segment)
      if (!match) return `a parameter must be a whole segment like "{id}", not "${segment}"`
      const name = match[1]!
      if (!parameterName.test(name))
        return `invalid parameter name "${name}": letters, digits and "_", not starting with a digit`
      if (seen.has(name)) return `duplicate parameter "{${name}}"`
      seen.add(name)
      if (last && wildcard) return '"*" must follow a literal segment or "/", not a parameter'
      continue
    }
    if (!segmentCharacters.test(segment))
      return `invalid character in segment "${segment}" (letters, digits and -._~!$&'()+,;=:@% are allowed)`
  }
  return undefined
}

/** A pattern (one {@link pathPatternProblem} accepts) read into its segments. */
export function parsePathPattern(pattern: string): ParsedPathPattern {
  const { segments, wildcard } = splitPattern(pattern)
  return {
    wildcard,
    segments: segments.map((segment): PatternSegment => {
      const name = parameterSegment.exec(segment)?.[1]
      return name === undefined ? { kind: 'literal', text: segment } : { kind: 'parameter', name }
    }),
  }
}

/** The `{name}` parameters of a pattern, in order. */
export function pathParameters(pattern: string): string[] {
  return parsePathPattern(pattern).segments.flatMap((segment) => (segment.kind === 'parameter' ? [segment.name] : []))
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** Compiles an accepted pattern of an endpoint of `method` to a matcher of request paths (see the module comment). */
export function compilePattern(method: string, pattern: string): CompiledPattern {
  const { segments, wildcard } = parsePathPattern(pattern)
  let literals = 0
  let params = 0
  let literalChars = 0
  const parts = segments.map((segment, index) => {
    if (segment.kind === 'parameter') {
      params++
      return '([^/]+)'
    }
    // The segment a wildcard continues (`img` of `/files/img*`) is a prefix, not a whole literal segment.
    if (segment.text !== '' && !(wildcard && index === segments.length - 1)) literals++
    literalChars += segment.text.length
    return escapeRegex(segment.text)
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
export function findMatch<T extends { compiled: CompiledPattern }>(
  candidates: readonly T[],
  method: string,
  path: string,
): T | undefined {
  for (const candidate of candidates) {
    if (candidate.compiled.method === method && candidate.compiled.regex.test(path)) return candidate
  }
  return undefined
}

/**
 * The OpenAPI path of a pattern: `{name}` stays a path parameter; a trailing `*` becomes a catch-all path parameter
 * named `path` (or `rest`, `path_2`, … when taken) at the place of the `*`: `/files/*` → `/files/{path}`,
 * `/files*` → `/files{path}`, `/*` → `/{path}`.
 */
export function openApiPath(pattern: string): OpenApiPath {
  const { segments, wildcard } = parsePathPattern(pattern)
  const rest = wildcard ? pattern.slice(0, -1) : pattern
  const names = segments.flatMap((segment) => (segment.kind === 'parameter' ? [segment.name] : []))
  const parameters = names.map((name) => ({ name, catchAll: false }))
  if (!wildcard) return { path: rest, parameters }
  const taken = new Set(names)
  let name = ['path', 'rest'].find((candidate) => !taken.has(candidate))
  for (let i = 2; !name; i++) if (!taken.has(`path_${i}`)) name = `path_${i}`
  return { path: `${rest}{${name}}`, parameters: [...parameters, { name, catchAll: true }] }
}

/**
 * The OpenAPI Parameter Object of a path parameter: required, `schema` (a string unless given); a catch-all's
 * description says that its value is the rest of the path and may contain `/`.
 */
export function openApiParameter(
  parameter: OpenApiPathParameter,
  schema: Record<string, unknown> = { type: 'string' },
) {
  return {
    name: parameter.name,
    in: 'path',
    required: true,
    ...(parameter.catchAll ? { description: 'The rest of the request path; it may contain "/".' } : {}),
    schema,
  }
}

/** The pattern in the `:name` form of express-style routers (x402's Bazaar extension): `/users/{id}/*` → `/users/:id/*`. */
export function routePatternOf(pattern: string): string {
  const { segments, wildcard } = parsePathPattern(pattern)
  const path = segments.map((segment) => (segment.kind === 'parameter' ? `:${segment.name}` : segment.text)).join('/')
  return `/${path}${wildcard ? '*' : ''}`
}

/** A request path the pattern matches: each parameter replaced by `fill(name)`, a trailing `*` dropped. */
export function fillPathPattern(pattern: string, fill: (name: string) => string): string {
  const { segments } = parsePathPattern(pattern)
  return `/${segments.map((segment) => (segment.kind === 'parameter' ? fill(segment.name) : segment.text)).join('/')}`
}
