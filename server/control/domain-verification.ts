import { randomBytes } from 'node:crypto'
import { Resolver } from 'node:dns/promises'
import { SvcError } from '../../core/errors.js'
import type { DomainRow } from '../db/index.js'

/** The TXT record a domain's owner publishes: `_svc-challenge.<hostname>` = `svc-verification=<token>`. */
export const challengePrefix = '_svc-challenge.'
export const challengeValue = (token: string) => `svc-verification=${token}`

export const newVerificationToken = () => randomBytes(16).toString('hex')

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
    throw new SvcError(
      `invalid DNS servers ${JSON.stringify(dnsServers)} (SVC_DNS_SERVERS): ${(error as Error).message}`,
      { cause: error },
    )
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
