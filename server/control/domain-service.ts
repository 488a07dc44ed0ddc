import { randomBytes } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import { z } from 'zod'
import { NotFoundError, SvcError } from '../../core/errors.js'
import type { ApiRow, DomainRow } from '../db/tables.js'
import { gatewayHost, type Hosts } from '../../core/hosts.js'
import { required } from './api-service.js'
import type { ServerDeps } from '../deps.js'

/** The TXT record a domain's owner publishes: `_svc-challenge.<hostname>` = `svc-verification=<token>`. */
export const challengePrefix = '_svc-challenge.'
export const challengeValue = (token: string) => `svc-verification=${token}`

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Why a (lower-cased) hostname cannot be a custom domain, or undefined: it must be a fully qualified DNS name
 * (2+ labels of a-z, 0-9 and inner hyphens; punycode for IDNs), not an IP address, not `localhost` or under it, and
 * not one of svc's own hosts or under them.
 */
export function hostnameProblem(hostname: string, hosts: Hosts): string | undefined {
  if (isIP(hostname) || isIP(hostname.replace(/^\[|\]$/g, ''))) return 'must be a hostname, not an IP address'
  if (hostname.length > 253) return 'at most 253 characters'
  const reserved = ['localhost', hosts.platformDomain, hosts.sandboxPlatformDomain, hosts.controlHost, hosts.sandboxControlHost]
  if (reserved.some((name) => hostname === name || hostname.endsWith(`.${name}`))) return 'is reserved for svc hosts'
  const labels = hostname.split('.')
  if (labels.length < 2) return 'must be a fully qualified domain name like api.example.com'
  const bad = labels.find((part) => !label.test(part))
  if (bad !== undefined)
    return bad === '' ? 'empty label ("..")' : `invalid label "${bad}": 1-63 letters, digits and inner hyphens (use punycode for international names)`
  if (/^[0-9]+$/.test(labels.at(-1)!)) return 'the top-level label must not be numeric'
  return undefined
}

export function createDomainSchema(hosts: Hosts) {
  return z.strictObject({
    hostname: z
      .string({ error: required('expected a string') })
      .max(254, { error: 'at most 253 characters' })
      .transform((value) => value.trim().toLowerCase().replace(/\.$/, ''))
      .superRefine((value, ctx) => {
        const problem = hostnameProblem(value, hosts)
        if (problem) ctx.addIssue({ code: 'custom', message: problem })
      }),
  })
}

export const newVerificationToken = () => randomBytes(16).toString('hex')

/** A domain as the control plane answers it. */
export function domainRecord(deps: ServerDeps, api: ApiRow, row: DomainRow) {
  return {
    id: row.id,
    api_id: row.api_id,
    hostname: row.hostname,
    status: row.status,
    verification_record: { type: 'TXT' as const, name: `${challengePrefix}${row.hostname}`, value: challengeValue(row.verification_token) },
    cname_target: gatewayHost(deps.hosts, api.environment, api.slug),
    verification_token: row.verification_token,
    verified_at: row.verified_at,
    created_at: row.created_at,
  }
}

export async function findDomain(deps: ServerDeps, apiId: string, domainId: string): Promise<DomainRow> {
  const row = await deps.db.selectFrom('domains').selectAll().where('api_id', '=', apiId).where('id', '=', domainId).executeTakeFirst()
  if (!row) throw new NotFoundError('domain not found')
  return row
}

export type ChallengeResult = { found: true } | { found: false; reason: string }

/**
 * Looks up the challenge TXT record through real DNS: the servers of SVC_DNS_SERVERS (`host` or `host:port`) or
 * the system's, one try of at most 2 s. A record's character-strings are joined (long values are split at 255).
 */
export function createChallengeChecker(dnsServers: string[] | undefined) {
  const resolver = new Resolver({ timeout: 2000, tries: 1 })
  try {
    if (dnsServers && dnsServers.length > 0) resolver.setServers(dnsServers)
  } catch (error) {
    throw new SvcError(`invalid DNS servers ${JSON.stringify(dnsServers)} (SVC_DNS_SERVERS): ${(error as Error).message}`, { cause: error })
  }
  return async function check(row: DomainRow): Promise<ChallengeResult> {
    const name = `${challengePrefix}${row.hostname}`
    const expected = challengeValue(row.verification_token)
    let records: string[][]
    try {
      records = await resolver.resolveTxt(name)
    } catch (error) {
      return { found: false, reason: lookupFailure(name, (error as NodeJS.ErrnoException).code) }
    }
    const values = records.map((chunks) => chunks.join(''))
    if (values.includes(expected)) return { found: true }
    return {
      found: false,
      reason: `the TXT record ${name} has ${values.length === 1 ? 'a value' : `${values.length} values`}, none equal to "${expected}"`,
    }
  }
}

function lookupFailure(name: string, code: string | undefined): string {
  switch (code) {
    case 'ENODATA':
    case 'ENOTFOUND':
      return `no TXT record at ${name}: publish one with the value of verification_record`
    case 'ETIMEOUT':
      return `the DNS lookup of ${name} timed out: try again`
    default:
      return `the DNS lookup of ${name} failed (${code ?? 'unknown error'}): try again`
  }
}
