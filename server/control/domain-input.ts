import { isIP } from 'node:net'
import { z } from 'zod'
import type { Hosts } from '../../core/hosts.js'
import { required } from '../../core/inputs/validation.js'

const label = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/**
 * Why a (lower-cased) hostname cannot be a custom domain, or undefined: it must be a fully qualified DNS name
 * (2+ labels of a-z, 0-9 and inner hyphens; punycode for IDNs), not an IP address, not `localhost` or under it, and
 * not one of svc's own hosts or under them.
 */
export function hostnameProblem(hostname: string, hosts: Hosts): string | undefined {
  if (isIP(hostname) || isIP(hostname.replace(/^\[|\]$/g, ''))) return 'must be a hostname, not an IP address'
  if (hostname.length > 253) return 'at most 253 characters'
  const reserved = [
    'localhost',
    hosts.platformDomain,
    hosts.sandboxPlatformDomain,
    hosts.controlHost,
    hosts.sandboxControlHost,
  ]
  if (reserved.some((name) => hostname === name || hostname.endsWith(`.${name}`))) return 'is reserved for svc hosts'
  const labels = hostname.split('.')
  if (labels.length < 2) return 'must be a fully qualified domain name like api.example.com'
  const bad = labels.find((part) => !label.test(part))
  if (bad !== undefined)
    return bad === ''
      ? 'empty label ("..")'
      : `invalid label "${bad}": 1-63 letters, digits and inner hyphens (use punycode for international names)`
  if (/^[0-9]+$/.test(labels.at(-1)!)) return 'the top-level label must not be numeric'
  return undefined
}

/** POST /apis/{id}/domains: the hostname, trimmed, lower-cased, without a trailing dot. */
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
