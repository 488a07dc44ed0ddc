import fc from 'fast-check'
import { expect } from 'vitest'

/**
 * What every fuzz file shares: the fixed seed, the run loop (a time bound on top of the number of runs), the check of
 * each answer, and arbitraries for hostile JSON values.
 */

/** The seed of every fuzz run: the same inputs on every machine, so a failure reproduces. */
export const fuzzSeed = 20_261_122

/** Longest error answer (its whole body) a service may send; a 402 carries the PaymentRequired. */
export const errorBodyLimit = 16 * 1024
/** Longest `error` message: core/http's errorMessageLimit (1000) plus the few words a flow appends. */
export const errorMessageBound = 1100

/** An answer as the fuzzer saw it; `head`: the answer to a HEAD request, which has no body to check. */
export type Answer = { status: number; contentType: string; body: string; head?: boolean }

/** Why an answer breaks the rules (a 5xx, an error that is not JSON `{"error": string}`, an unbounded body), or undefined. */
export function problemOf(answer: Answer): string | undefined {
  const { status, contentType, body } = answer
  if (status >= 500) return `status ${status}: ${body.slice(0, 300)}`
  if (status < 400 || answer.head) return undefined
  if (!contentType.includes('application/json'))
    return `status ${status} answered as ${contentType || 'no content type'}: ${body.slice(0, 200)}`
  if (body.length > errorBodyLimit) return `status ${status} with a ${body.length}-character body`
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return `status ${status} with a body that is not JSON: ${body.slice(0, 200)}`
  }
  const error = (parsed as { error?: unknown } | null)?.error
  if (typeof error !== 'string') return `status ${status} without an "error" string: ${body.slice(0, 200)}`
  if (error.length > errorMessageBound) return `status ${status} with a ${error.length}-character error`
  return undefined
}

/** Reads a fetch response as an {@link Answer} (of a HEAD request when `method` says so). */
export async function answerOf(response: Response, method = 'GET'): Promise<Answer> {
  return {
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: await response.text(),
    head: method === 'HEAD',
  }
}

export type FuzzOptions = {
  /** How many inputs. */
  runs: number
  /** Requests in flight at once. @defaultValue 4 */
  concurrency?: number
  /**
   * No new input is sent past this many milliseconds, so that a run too slow fails as cut short, not by vitest's
   * timeout (the fuzz tests allow 120 s; on a quiet 2-core machine they take 8-15 s, at load 12 over 45). @defaultValue 100000
   */
  timeLimitMs?: number
}

export type FuzzReport = { runs: number; ms: number; problems: string[] }

/** Problems kept in a report (the count of runs says how many there were). */
const problemsKept = 20

/**
 * Sends `runs` inputs drawn from `inputs` (fast-check, fixed seed: the same inputs on every run) through `send`,
 * `concurrency` at a time, and checks every answer with {@link problemOf}; an input whose request failed without an
 * answer is a problem too. Returns how many ran, how long it took, and the first problems with their inputs.
 */
export async function fuzz<Input>(
  inputs: fc.Arbitrary<Input>,
  send: (input: Input) => Promise<Answer>,
  options: FuzzOptions,
): Promise<FuzzReport> {
  const { runs, concurrency = 4, timeLimitMs = 100_000 } = options
  const sample = fc.sample(inputs, { seed: fuzzSeed, numRuns: runs })
  const problems: string[] = []
  let next = 0
  let count = 0
  const started = performance.now()
  const deadline = started + timeLimitMs
  const worker = async () => {
    while (next < sample.length && performance.now() < deadline) {
      const input = sample[next++]!
      count++
      let problem: string | undefined
      try {
        problem = problemOf(await send(input))
      } catch (error) {
        problem = `no answer: ${String((error as Error)?.cause ?? error).slice(0, 200)}`
      }
      if (problem && problems.length < problemsKept) problems.push(`${problem}\n  input: ${describe(input)}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return { runs: count, ms: Math.round(performance.now() - started), problems }
}

/** Asserts a fuzz report: no problem, and every planned input ran (not cut by the time bound). */
export function expectClean(name: string, report: FuzzReport, planned: number): void {
  console.info(`fuzz ${name}: ${report.runs} inputs in ${(report.ms / 1000).toFixed(1)} s`)
  expect(report.problems).toEqual([])
  expect(report.runs).toBe(planned)
}

function describe(input: unknown): string {
  let text: string
  try {
    text =
      JSON.stringify(input, (_key, value: unknown) => (typeof value === 'bigint' ? `${value}n` : value)) ??
      String(input)
  } catch {
    text = String(input)
  }
  return text.length > 600 ? `${text.slice(0, 600)}… (${text.length} characters)` : text
}

/** Every UTF-8 byte of `text` percent-encoded, for a URL path (a lone surrogate becomes U+FFFD). */
export const percentEncoded = (text: string) =>
  [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('')

/** Printable ASCII: what a header value or a URL of a well-behaved client may carry. */
export const printable = (maxLength = 40) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength })

/** Strings a parser trips on: numbers in other notations, hex, huge digits, unicode, control characters, empty. */
export const nastyString = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      'abc',
      '1e400',
      '-1',
      '0x10',
      '1.5',
      'NaN',
      'Infinity',
      '00',
      '0',
      '9'.repeat(80),
      '0x',
      '0xzz',
      'null',
      'true',
      '[]',
      '{}',
      '__proto__',
      'constructor',
      '%',
      '%00',
      '../..',
      '\u0000',
      '\ud800',
      '💸',
      'é',
    ),
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  {
    weight: 2,
    arbitrary: fc
      .string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), maxLength: 70 })
      .map((hex) => `0x${hex}`),
  },
  { weight: 1, arbitrary: fc.constantFrom(1_000, 1_000, 20_000, 200_000).map((length) => 'x'.repeat(length)) },
)

/** Any JSON value, with a bias towards the strings and numbers that break parsers. */
export const nastyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 3, arbitrary: nastyString },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      0,
      -1,
      1.5,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER + 2,
      2 ** 53,
      true,
      false,
      null,
      [],
      {},
    ),
  },
  { weight: 1, arbitrary: fc.dictionary(nastyString, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 5 }) },
)

/** A marker replacement: remove the key. */
export const removed = Symbol('removed')

/** Every path into a JSON value (objects and arrays), the root excluded. */
export function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return []
  const entries = Array.isArray(value) ? value.map((inner, index) => [index, inner] as const) : Object.entries(value)
  return entries.flatMap(([key, inner]) => [[...prefix, key], ...pathsOf(inner, [...prefix, key])])
}

/** `value` (cloned) with the value at `path` replaced, or removed. */
export function replacedAt<T>(value: T, path: (string | number)[], replacement: unknown): T {
  const copy = structuredClone(value) as Record<string | number, unknown>
  let parent = copy
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path[path.length - 1]!
  if (replacement === removed) delete parent[last]
  else parent[last] = replacement
  return copy as T
}

/**
 * Mutations of a valid JSON value: one to three of its fields replaced by hostile values or removed, or an extra key
 * added somewhere.
 */
export function mutationsOf<T>(valid: T): fc.Arbitrary<T> {
  const paths = pathsOf(valid)
  const replacement = fc.oneof(
    { weight: 5, arbitrary: nastyJson },
    { weight: 1, arbitrary: fc.constant<unknown>(removed) },
  )
  const change = fc.tuple(fc.constantFrom(...paths), replacement)
  return fc
    .array(change, { minLength: 1, maxLength: 3 })
    .map((changes) =>
      changes.reduce<T>((value, [path, next]) => (hasPath(value, path) ? replacedAt(value, path, next) : value), valid),
    )
}

function hasPath(value: unknown, path: (string | number)[]): boolean {
  let current = value
  for (const key of path.slice(0, -1)) {
    if (current === null || typeof current !== 'object') return false
    current = (current as Record<string | number, unknown>)[key]
  }
  return current !== null && typeof current === 'object'
}
