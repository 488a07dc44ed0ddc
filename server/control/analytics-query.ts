import { z } from 'zod'
import { sandboxNetwork, usdcAddress, usdcDecimals } from '../../core/sandbox-usdc.js'
import { BadRequestError } from '../../core/errors.js'
import { formatZodError } from '../../core/http.js'
import type { SettlementCursor } from '../db/index.js'

/**
 * Query-string parsing shared by the analytics routes (GET /stats/overview, GET /settlements): strict (unknown
 * parameters are a 400 naming them), one value per parameter, errors as `name: problem`.
 */
export function parseQuery<T extends z.ZodType>(schema: T, query: unknown): z.infer<T> {
  const result = schema.safeParse(query ?? {})
  if (result.success) return result.data
  const issue = result.error.issues[0]
  if (issue?.code === 'unrecognized_keys')
    throw new BadRequestError(
      `unknown query parameter${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => `"${k}"`).join(', ')}`,
    )
  throw new BadRequestError(formatZodError(result.error))
}

/** One string value of a query parameter; a repeated parameter (`?a=1&a=2`) is refused. */
export const queryString = (message = 'expected a string') =>
  z.string({ error: (issue) => (Array.isArray(issue.input) ? 'given more than once' : message) })

/** An integer parameter in [min, max]. */
export const queryInt = (min: number, max: number) => {
  const message = `must be an integer from ${min} to ${max}`
  return queryString(message)
    .regex(/^\d{1,9}$/, { error: message })
    .transform(Number)
    .refine((n) => n >= min && n <= max, { error: message })
}

/** An id-like parameter: non-empty, at most 200 characters. */
export const queryId = () =>
  queryString().min(1, { error: 'must not be empty' }).max(200, { error: 'at most 200 characters' })

const dayPattern = /^\d{4}-\d{2}-\d{2}$/
const timestampPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i

/** True for a real calendar day written YYYY-MM-DD. */
export function isDay(value: string): boolean {
  if (!dayPattern.test(value)) return false
  const date = new Date(`${value}T00:00:00.000Z`)
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value
}

/** A moment: an ISO timestamp with a zone, or a YYYY-MM-DD day (which stands for its whole UTC day). */
export type Moment = { day: boolean; iso: string }

/** `from` / `to` parameters: YYYY-MM-DD or an ISO 8601 timestamp with Z or an offset, normalized to UTC ISO. */
export const queryMoment = () => {
  const message = 'expected YYYY-MM-DD or an ISO 8601 timestamp with a time zone (e.g. 2026-01-31T12:00:00Z)'
  return queryString(message).transform((value, ctx): Moment => {
    if (isDay(value)) return { day: true, iso: `${value}T00:00:00.000Z` }
    const date = new Date(value)
    if (timestampPattern.test(value) && isDay(value.slice(0, 10)) && !Number.isNaN(date.getTime()))
      return { day: false, iso: date.toISOString() }
    ctx.addIssue({ code: 'custom', message })
    return z.NEVER
  })
}

/** YYYY-MM-DD of a Date, in UTC. */
export const utcDay = (date: Date) => date.toISOString().slice(0, 10)

/** The UTC day `n` days after `day` (negative: before). */
export const addDays = (day: string, n: number) => utcDay(new Date(Date.parse(`${day}T00:00:00.000Z`) + n * 86_400_000))

/** A settlement cursor as clients see it: opaque (base64url of JSON [created_at, id]). */
export const encodeCursor = (cursor: SettlementCursor) =>
  Buffer.from(JSON.stringify([cursor.createdAt, cursor.id])).toString('base64url')

export function decodeCursor(value: string): SettlementCursor {
  const invalid = () => new BadRequestError('cursor: invalid')
  if (!/^[A-Za-z0-9_-]{1,1000}$/.test(value)) throw invalid()
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'))
  } catch {
    throw invalid()
  }
  if (
    !Array.isArray(decoded) ||
    decoded.length !== 2 ||
    !decoded.every((part) => typeof part === 'string' && part.length > 0 && part.length <= 200)
  )
    throw invalid()
  return { createdAt: decoded[0] as string, id: decoded[1] as string }
}

/** Tokens svc knows by name: USDC on the Sandbox chain, Base and Base Sepolia. */
const knownTokens = new Map<string, { decimals: number; symbol: string }>([
  [`${sandboxNetwork}|${usdcAddress.toLowerCase()}`, { decimals: usdcDecimals, symbol: 'USDC' }],
  [`eip155:8453|${usdcAddress.toLowerCase()}`, { decimals: usdcDecimals, symbol: 'USDC' }],
  ['eip155:84532|0x036cbd53842c5426634e7929541ec2318f3dcf7e', { decimals: usdcDecimals, symbol: 'USDC' }],
])

export const tokenDecimals = (network: string, asset: string): number | undefined =>
  knownTokens.get(`${network}|${asset.toLowerCase()}`)?.decimals

/** A revenue line: amount in atomic units as a decimal string, decimals and symbol when the token is known. */
export type RevenueLine = { network: string; asset: string; amount: string; decimals?: number; symbol?: string }

/** Adds amounts per (network, asset) and answers them sorted by network, then asset. */
export class RevenueTally {
  readonly #lines = new Map<string, { network: string; asset: string; amount: bigint }>()

  add(network: string, asset: string, amount: bigint) {
    // One line per token, whichever case its address came in (settlements and channels may differ).
    const key = `${network}|${asset.toLowerCase()}`
    const line = this.#lines.get(key)
    if (line) line.amount += amount
    else this.#lines.set(key, { network, asset, amount })
  }

  lines(withDecimals: boolean): RevenueLine[] {
    return [...this.#lines.values()]
      .sort((a, b) => (a.network === b.network ? (a.asset < b.asset ? -1 : 1) : a.network < b.network ? -1 : 1))
      .map(({ network, asset, amount }) => {
        const known = withDecimals ? knownTokens.get(`${network}|${asset.toLowerCase()}`) : undefined
        return { network, asset, amount: amount.toString(), ...known }
      })
  }
}
