import { createRequire } from 'node:module'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { Ajv } from 'ajv'
import { z } from 'zod'
import { pathPatternProblem } from '../path-pattern.js'
import { evmAddress, required } from './validation.js'
import { checkAuthCaptureAccept } from './auth-capture-accept.js'
import { checkBatchAccept, checkBatchAccepts } from './batch-accept.js'

/** The methods an endpoint may have. */
export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const
export type HttpMethod = (typeof httpMethods)[number]

export const methodSchema = z
  .string({ error: required(`expected one of ${httpMethods.join(', ')}`) })
  .transform((value) => value.trim().toUpperCase())
  .pipe(z.enum(httpMethods, { error: `must be one of ${httpMethods.join(', ')}` }))

/** A path pattern (grammar and messages: core/path-pattern.ts). */
export const pathPatternSchema = z
  .string({ error: required('expected a string') })
  .max(1000, { error: 'at most 1000 characters' })
  .superRefine((value, ctx) => {
    const problem = pathPatternProblem(value)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  })

const maxUint256 = 2n ** 256n

/**
 * The payment schemes an accept may name: `exact` (a set price), `upto` (a maximum; the upstream settles what was
 * used), `batch-settlement` (a price paid by vouchers on a channel the buyer deposited into: ./batch-accept.ts) and
 * `auth-capture` (escrow payments: a hold captured, voided or refunded later, or a terminal charge:
 * ./auth-capture-accept.ts).
 */
export const acceptSchemes = ['exact', 'upto', 'batch-settlement', 'auth-capture'] as const
/** How an EVM payment moves the token (`extra.assetTransferMethod`): EIP-3009 (the default of `exact`) or Permit2. */
export const assetTransferMethods = ['eip3009', 'permit2'] as const
/**
 * When an accept's payment is settled (`extra.paymentFlow`, @x402/core's PaymentFlowName): `authorization` (the
 * default: verify, call the upstream, settle only on its success) or `upfront` (settle, then call the upstream).
 * x402's `escrow` is the auth-capture scheme's (@x402/evm's exact and upto tables list authorization and upfront
 * only); auth-capture's own flows are checked by ./auth-capture-accept.ts.
 */
export const paymentFlows = ['authorization', 'upfront'] as const

/**
 * How a Permit2 buyer without an approval is sponsored (`extra.gasSponsoring`, svc's): by an EIP-2612 permit or by a
 * signed `approve` the facilitator sends; left out, the 402 declares every one the facilitator supports.
 */
export const gasSponsorings = ['eip2612GasSponsoring', 'erc20ApprovalGasSponsoring'] as const

const acceptExtraSchema = z
  .record(z.string(), z.unknown(), { error: 'expected an object' })
  .superRefine((extra, ctx) => {
    const method = extra.assetTransferMethod
    if (method !== undefined && !(assetTransferMethods as readonly unknown[]).includes(method))
      ctx.addIssue({
        code: 'custom',
        path: ['assetTransferMethod'],
        message: `must be one of ${assetTransferMethods.join(', ')}`,
      })
  })

export const acceptSchema = z
  .strictObject({
    scheme: z.enum(acceptSchemes, { error: required(`must be one of ${acceptSchemes.join(', ')}`) }),
    network: z
      .string({ error: required('expected a CAIP-2 network id') })
      .regex(/^eip155:[1-9][0-9]{0,19}$/, { error: 'must be a CAIP-2 EVM network id like "eip155:8453"' }),
    asset: evmAddress(),
    amount: z
      .string({ error: required('expected a string of atomic units, e.g. "100000"') })
      .refine((value) => /^[1-9][0-9]{0,77}$/.test(value) && BigInt(value) < maxUint256, {
        error: 'must be a positive integer of atomic units without leading zeros, below 2^256',
      }),
    max_timeout_seconds: z
      .number({ error: 'expected an integer number of seconds' })
      .int({ error: 'expected an integer number of seconds' })
      .min(1, { error: 'between 1 and 86400' })
      .max(86_400, { error: 'between 1 and 86400' })
      .default(300),
    extra: acceptExtraSchema.optional(),
  })
  .superRefine((accept, ctx) => {
    if (accept.scheme === 'batch-settlement') return checkBatchAccept(accept, ctx)
    if (accept.scheme === 'auth-capture') return checkAuthCaptureAccept(accept, ctx)
    // The flow is the scheme's: auth-capture's are escrow and authorization (./auth-capture-accept.ts).
    const flow = accept.extra?.paymentFlow
    if (flow !== undefined && !(paymentFlows as readonly unknown[]).includes(flow))
      ctx.addIssue({
        code: 'custom',
        path: ['extra', 'paymentFlow'],
        message:
          flow === 'escrow'
            ? 'escrow is the auth-capture scheme\'s flow: use scheme "auth-capture", or "authorization" (the default) or "upfront" here'
            : `must be one of ${paymentFlows.join(', ')}`,
      })
    const sponsoring = accept.extra?.gasSponsoring
    if (sponsoring !== undefined && !(gasSponsorings as readonly unknown[]).includes(sponsoring))
      ctx.addIssue({
        code: 'custom',
        path: ['extra', 'gasSponsoring'],
        message: `must be one of ${gasSponsorings.join(', ')}`,
      })
    else if (sponsoring !== undefined && accept.scheme === 'exact' && accept.extra?.assetTransferMethod !== 'permit2')
      ctx.addIssue({
        code: 'custom',
        path: ['extra', 'gasSponsoring'],
        message: 'sponsors a Permit2 approval: set extra.assetTransferMethod to "permit2"',
      })
    if (accept.scheme === 'upto' && accept.extra?.assetTransferMethod === 'eip3009')
      ctx.addIssue({
        code: 'custom',
        path: ['extra', 'assetTransferMethod'],
        message: 'the upto scheme pays through Permit2 only: use "permit2" or leave it out',
      })
    // upto's charge is known only once the upstream answered, so it cannot be settled before (@x402/evm's upto
    // scheme lists the authorization flow only).
    if (accept.scheme === 'upto' && accept.extra?.paymentFlow === 'upfront')
      ctx.addIssue({
        code: 'custom',
        path: ['extra', 'paymentFlow'],
        message:
          'the upto scheme settles what the upstream says it used, after it answered: it cannot be paid upfront (use "authorization" or leave it out)',
      })
  })
export type AcceptInput = z.infer<typeof acceptSchema>

export const acceptsSchema = z
  .array(acceptSchema, { error: required('expected an array of accept options') })
  .min(1, { error: 'at least one accept option' })
  .max(10, { error: 'at most 10 accept options' })
  .superRefine(checkBatchAccepts)

let validators: { ajv2020: Ajv2020; ajv7: Ajv } | undefined

/** The schema checkers, made on first use: not at every start of svc (`svc up` checks no schema until asked to). */
function schemaValidators(): { ajv2020: Ajv2020; ajv7: Ajv } {
  if (validators) return validators
  const ajv7 = new Ajv({ strict: false, validateSchema: false })
  ajv7.addMetaSchema(createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-06.json'))
  validators = { ajv2020: new Ajv2020({ strict: false, validateSchema: false }), ajv7 }
  return validators
}

/** Why a value is not a JSON Schema (2020-12, or draft-07/06 when its `$schema` says so), or undefined. */
export function jsonSchemaProblem(schema: Record<string, unknown>): string | undefined {
  const dialect = schema.$schema
  const { ajv2020, ajv7 } = schemaValidators()
  const ajv =
    dialect === undefined || (typeof dialect === 'string' && dialect.includes('2020-12'))
      ? ajv2020
      : typeof dialect === 'string' && /draft-0[67]/.test(dialect)
        ? ajv7
        : undefined
  if (!ajv) return `unsupported $schema ${JSON.stringify(dialect)} (2020-12, draft-07 and draft-06 are)`
  try {
    if (ajv.validateSchema(schema)) return undefined
  } catch (error) {
    return (error as Error).message
  }
  const first = ajv.errors?.[0]
  return first ? `${first.instancePath || '/'} ${first.message ?? 'is invalid'}` : 'invalid'
}

/** An object that is a valid JSON Schema; null clears it where allowed. */
export const jsonSchemaObject = z
  .record(z.string(), z.unknown(), { error: 'expected a JSON Schema object or null' })
  .superRefine((schema, ctx) => {
    const problem = jsonSchemaProblem(schema)
    if (problem) ctx.addIssue({ code: 'custom', message: `not a valid JSON Schema: ${problem}` })
  })

const description = z
  .string({ error: 'expected a string or null' })
  .max(10_000, { error: 'at most 10000 characters' })
  .nullable()

/** Sign-in-with-x on an endpoint: a payer signs in instead of paying again for `access_seconds` after a payment. */
export const siwxSchema = z
  .strictObject(
    {
      access_seconds: z
        .number({ error: 'expected an integer number of seconds' })
        .int({ error: 'expected an integer number of seconds' })
        .min(1, { error: 'between 1 and 31536000 seconds' })
        .max(31_536_000, { error: 'between 1 and 31536000 seconds' }),
    },
    { error: 'expected {"access_seconds": <seconds>} or null' },
  )
  .nullable()

export const createEndpointSchema = z.strictObject({
  method: methodSchema,
  path_pattern: pathPatternSchema,
  accepts: acceptsSchema,
  request_schema: jsonSchemaObject.nullable().optional(),
  response_schema: jsonSchemaObject.nullable().optional(),
  enabled: z.boolean({ error: 'expected true or false' }).optional(),
  description: description.optional(),
  payment_identifier_required: z.boolean({ error: 'expected true or false' }).optional(),
  ttl: z
    .number({ error: 'expected an integer number of seconds' })
    .int({ error: 'expected an integer number of seconds' })
    .min(1, { error: 'between 1 and 31536000 seconds' })
    .max(31_536_000, { error: 'between 1 and 31536000 seconds' })
    .optional(),
  siwx: siwxSchema.optional(),
})
export type CreateEndpointInput = z.infer<typeof createEndpointSchema>

export const updateEndpointSchema = z
  .strictObject({
    method: methodSchema.optional(),
    path_pattern: pathPatternSchema.optional(),
    accepts: acceptsSchema.optional(),
    request_schema: jsonSchemaObject.nullable().optional(),
    response_schema: jsonSchemaObject.nullable().optional(),
    clear_schemas: z.boolean({ error: 'expected true or false' }).optional(),
    enabled: z.boolean({ error: 'expected true or false' }).optional(),
    description: description.optional(),
    siwx: siwxSchema.optional(),
    payment_identifier_required: z.boolean({ error: 'expected true or false' }).optional(),
  })
  .refine(
    (body) => !(body.clear_schemas && (body.request_schema !== undefined || body.response_schema !== undefined)),
    {
      error: 'give schemas or clear_schemas, not both',
      path: ['clear_schemas'],
    },
  )
export type UpdateEndpointInput = z.infer<typeof updateEndpointSchema>

/** One operation to import, as POST /openapi/parse answers it (method and path_pattern are enough). */
export const importOperationSchema = z.strictObject({
  method: methodSchema,
  path_pattern: pathPatternSchema,
  summary: description.optional(),
  description: description.optional(),
  operation_id: z.string({ error: 'expected a string or null' }).max(1000).nullable().optional(),
  request_schema: jsonSchemaObject.nullable().optional(),
  response_schema: jsonSchemaObject.nullable().optional(),
})
export type ImportOperationInput = z.infer<typeof importOperationSchema>
