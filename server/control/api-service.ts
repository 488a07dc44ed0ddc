import { getAddress, isAddress } from 'viem'
import { isHttpUrl } from '../../core/urls.js'
import { z } from 'zod'
import { ConflictError, NotFoundError } from '../../core/errors.js'
import type { ApiRow } from '../db/tables.js'
import { gatewayHost, isSlug, reservedSlugs } from '../../core/hosts.js'
import type { Principal } from './context.js'
import type { ServerDeps } from '../deps.js'

/** zod error for a field: `required` when it is missing, `message` when it has the wrong type or value. */
export const required =
  (message: string) =>
  (issue: { input?: unknown }): string =>
    issue.input === undefined ? 'required' : message

/** A route parameter as one string (express 5 types them as possibly repeated). */
export const param = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join('/') : (value ?? ''))

/** An EVM address in any case, checksummed. */
export const evmAddress = (missing = 'required') =>
  z
    .string({ error: (issue) => (issue.input === undefined ? missing : 'expected an EVM address') })
    .refine((value) => isAddress(value, { strict: false }), { error: 'not an EVM address (0x followed by 40 hex digits)' })
    .transform((value) => getAddress(value))

const slug = z
  .string({ error: required('expected a string') })
  .refine(isSlug, { error: 'must be a DNS label: 1-63 lower-case letters, digits and inner hyphens', abort: true })
  .refine((value) => !reservedSlugs.has(value), { error: (issue) => `"${String(issue.input)}" is reserved` })

const apiFields = {
  name: z
    .string({ error: required('expected a string') })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(100, { error: 'at most 100 characters' }),
  slug,
  upstream_base_url: z
    .string({ error: required('expected a string') })
    .max(2048, { error: 'at most 2048 characters' })
    .refine((value) => isHttpUrl(value, { bare: true }), { error: 'must be an absolute http or https URL without query or fragment' }),
  pay_to_mode: z.literal('user_wallet', { error: required('only "user_wallet" is supported') }),
  pay_to_address: evmAddress('required with pay_to_mode "user_wallet"'),
  discovery_guidance: z.string({ error: 'expected a string or null' }).max(10_000, { error: 'at most 10000 characters' }).nullable(),
  discovery_contact_email: z.email({ error: 'not an email address' }).max(254, { error: 'at most 254 characters' }).nullable(),
  openapi_version: z
    .string({ error: 'expected a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(50, { error: 'at most 50 characters' }),
}

export const createApiSchema = z.strictObject({
  ...apiFields,
  discovery_guidance: apiFields.discovery_guidance.optional(),
  discovery_contact_email: apiFields.discovery_contact_email.optional(),
  openapi_version: apiFields.openapi_version.optional(),
})

export const updateApiSchema = z.strictObject(apiFields).partial()

export type ApiRecord = ReturnType<typeof apiRecord>

/** The API as the control plane answers it. */
export function apiRecord(deps: ServerDeps, row: ApiRow) {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    environment: row.environment,
    upstream_base_url: row.upstream_base_url,
    pay_to_mode: row.pay_to_mode,
    pay_to_address: row.pay_to_address === null ? null : getAddress(row.pay_to_address),
    discovery_guidance: row.discovery_guidance,
    discovery_contact_email: row.discovery_contact_email,
    openapi_version: row.openapi_version,
    gateway_url: `http://${gatewayHost(deps.hosts, row.environment, row.slug)}:${deps.hosts.port}`,
    created_at: row.created_at,
    updated_at: row.updated_at,
  }
}

/** The caller's API of the caller's environment; anything else (another seller's, the other environment's) is 404. */
export async function findOwnedApi(deps: ServerDeps, principal: Principal, apiId: string): Promise<ApiRow> {
  const api = await deps.db
    .selectFrom('apis')
    .selectAll()
    .where('id', '=', apiId)
    .where('user_id', '=', principal.user.id)
    .where('environment', '=', principal.environment)
    .executeTakeFirst()
  if (!api) throw new NotFoundError('api not found')
  return api
}

/** Throws 409 "slug already exists" when another API of the environment has the slug. */
export async function assertSlugFree(deps: ServerDeps, environment: ApiRow['environment'], slugValue: string, exceptId?: string) {
  let query = deps.db.selectFrom('apis').select('id').where('environment', '=', environment).where('slug', '=', slugValue)
  if (exceptId) query = query.where('id', '!=', exceptId)
  if (await query.executeTakeFirst()) throw new ConflictError('slug already exists')
}
