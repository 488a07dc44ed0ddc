import { z } from 'zod'
import { isSlug, reservedSlugs } from '../hosts.js'
import { isHttpUrl } from '../urls.js'
import { evmAddress, required } from './validation.js'

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
    .refine((value) => isHttpUrl(value, { bare: true }), {
      error: 'must be an absolute http or https URL without query or fragment',
    }),
  pay_to_mode: z.literal('user_wallet', { error: required('only "user_wallet" is supported') }),
  pay_to_address: evmAddress('required with pay_to_mode "user_wallet"'),
  discovery_guidance: z
    .string({ error: 'expected a string or null' })
    .max(10_000, { error: 'at most 10000 characters' })
    .nullable(),
  discovery_contact_email: z
    .email({ error: 'not an email address' })
    .max(254, { error: 'at most 254 characters' })
    .nullable(),
  openapi_version: z
    .string({ error: 'expected a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(50, { error: 'at most 50 characters' }),
}

/** POST /apis: every field but the discovery ones and openapi_version is required. */
export const createApiSchema = z.strictObject({
  ...apiFields,
  discovery_guidance: apiFields.discovery_guidance.optional(),
  discovery_contact_email: apiFields.discovery_contact_email.optional(),
  openapi_version: apiFields.openapi_version.optional(),
})

/** PUT /apis/{id}: any of the fields. */
export const updateApiSchema = z.strictObject(apiFields).partial()
