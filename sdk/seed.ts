import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { parseUsdc } from '../core/sandbox-usdc.js'
import { z } from 'zod'
import { createSvcClient, SvcApiError, type SvcClient } from './client.js'
import type { Accept, EndpointInput } from './types.js'
import { UsageError } from '../core/errors.js'
import { sandboxNetwork, usdcAddress } from '../core/sandbox-usdc.js'
import { createApiSchema } from '../core/inputs/api.js'
import { createKeySchema, resolveScopes } from '../core/inputs/api-key.js'
import { presets, scopes } from '../core/scopes.js'
import { credentialsSchema } from '../core/inputs/credentials.js'
import { developmentAcceptProblem } from '../core/inputs/development-accept.js'
import {
  acceptSchema,
  acceptSchemes,
  httpMethods,
  assetTransferMethods,
  createEndpointSchema,
  gasSponsorings,
  paymentFlows,
} from '../core/inputs/endpoint.js'
import { seedProblems, type SeedKeys } from './seed-check.js'

const environmentSchema = z.enum(['production', 'development']).default('development')
const described = <T extends z.ZodType>(schema: T, description: string): T => schema.meta({ description })

/*
 * The seed's values are checked by the control plane's own validators (the routes' zod schemas and rules, not a copy
 * of them): every value the control plane would refuse at start-up is a problem of the whole-file check, with its
 * file, line and path, before anything starts. A field on its own takes the route's field schema; what spans fields
 * (an endpoint's accept, a key's scopes or preset, a development API's network and asset) is checked on the body the
 * seed sends ({@link seedEndpointBody}, {@link seedRuleIssues}), its paths named as the seed names them.
 */
const keyFields = createKeySchema.shape
const apiFields = createApiSchema.shape
const endpointFields = createEndpointSchema.shape
const acceptFields = acceptSchema.shape

// Each field's description is in the schema (`.meta`): schemas/seed.schema.json and docs/reference/seed.md show it.
const seedEndpointSchema = z.strictObject({
  method: described(endpointFields.method, `the HTTP method: ${httpMethods.join(', ')} (any case)`),
  path_pattern: described(
    endpointFields.path_pattern,
    'the path: literal segments and `{name}` parameters (`/weather/{city}`), an optional `*` at the very end matching any rest (`/files/*`)',
  ),
  price: described(
    z.string().regex(/^\d+(\.\d{1,6})?$/, 'a USDC amount as a string, at most 6 decimals: "0.01"'),
    'the price in USDC, a decimal string with at most 6 decimals (`"0.01"`); with `upto`, the most a buyer signs for',
  ),
  description: described(
    endpointFields.description,
    'what the endpoint answers, for buyers, discovery and the API page',
  ),
  ttl: described(endpointFields.ttl, "the endpoint's lifetime in seconds (1 to 31536000): it expires then"),
  request_schema: described(
    endpointFields.request_schema,
    "a JSON Schema of the request's body (2020-12, or draft-07/06 by `$schema`), for discovery and the API page",
  ),
  response_schema: described(
    endpointFields.response_schema,
    "a JSON Schema of the upstream's answer (2020-12, or draft-07/06 by `$schema`), for discovery and the API page",
  ),
  network: described(
    acceptFields.network.optional(),
    "the accept's network (CAIP-2, `eip155:<chain id>`); a development API's is the Sandbox chain's, `eip155:845320402`, when left out",
  ),
  asset: described(
    acceptFields.asset.optional(),
    "the token paid in (an address); a development API's is the Sandbox USDC when left out",
  ),
  scheme: z.enum(acceptSchemes).optional().meta({
    description:
      '`exact` (the price is the price), `upto` (the price is the most a buyer signs for; the upstream says what it used), `batch-settlement` (vouchers on a payment channel) or `auth-capture` (an escrow hold, captured, voided or refunded)',
    default: 'exact',
  }),
  transfer_method: described(
    z.enum(assetTransferMethods).optional(),
    "`extra.assetTransferMethod`: `eip3009` (exact's default) or `permit2` (upto's only one)",
  ),
  payment_flow: z
    .enum([...paymentFlows, 'escrow'])
    .optional()
    .meta({
      description:
        '`extra.paymentFlow`, as @x402/core names it: `authorization` (verify, call the upstream, settle on its success) or `upfront` (settle, then call the upstream); `auth-capture`: `escrow` (its default: hold, then capture) or `authorization` (one charge after the upstream answered)',
      default: 'authorization',
    }),
  capture_mode: z.enum(['sync', 'deferred']).optional().meta({
    description:
      '`extra.captureMode` (`auth-capture`, escrow flow): `sync` (captured when the upstream answers) or `deferred` (held for the seller to capture, void or let expire)',
    default: 'sync',
  }),
  capture_deadline_seconds: z.int().min(1).optional().meta({
    description: '`extra.captureDeadlineSeconds` (`auth-capture`): how long a hold can be captured, in seconds',
    default: 86_400,
  }),
  refund_deadline_seconds: z.int().min(1).optional().meta({
    description: '`extra.refundDeadlineSeconds` (`auth-capture`): how long a capture can be refunded, in seconds',
    default: 604_800,
  }),
  gas_sponsoring: described(
    z.enum(gasSponsorings).optional(),
    '`extra.gasSponsoring` (Permit2): how a buyer without a Permit2 approval is sponsored. Left out: both',
  ),
})
type SeedEndpoint = z.infer<typeof seedEndpointSchema>

/** Where an issue of the endpoint body the seed sends is in the seed's endpoint (`accepts.0.amount` is `price`). */
const acceptPaths: Record<string, string> = {
  scheme: 'scheme',
  network: 'network',
  asset: 'asset',
  amount: 'price',
  'extra.assetTransferMethod': 'transfer_method',
  'extra.paymentFlow': 'payment_flow',
  'extra.gasSponsoring': 'gas_sponsoring',
  'extra.captureMode': 'capture_mode',
  'extra.captureDeadlineSeconds': 'capture_deadline_seconds',
  'extra.refundDeadlineSeconds': 'refund_deadline_seconds',
}
function seedEndpointPath(path: readonly PropertyKey[]): PropertyKey[] {
  if (path[0] !== 'accepts') return [...path]
  const field = acceptPaths[path.slice(2).map(String).join('.')]
  return field ? [field] : []
}
/** The control plane's messages name the accept's `extra` fields; the seed names them its own way. */
const seedWords = (message: string) =>
  message
    .replaceAll('extra.assetTransferMethod', 'transfer_method')
    .replaceAll('extra.paymentFlow', 'payment_flow')
    .replaceAll('extra.gasSponsoring', 'gas_sponsoring')
    .replaceAll('extra.captureMode', 'capture_mode')
    .replaceAll('extra.captureDeadlineSeconds', 'capture_deadline_seconds')
    .replaceAll('extra.refundDeadlineSeconds', 'refund_deadline_seconds')

/** A problem the control plane's rules find in a seed, at its path in the seed. */
export type SeedRuleIssue = { path: PropertyKey[]; message: string }

const seedKeySchema = z.strictObject({
  name: described(keyFields.name, "the key's name (1 to 100 characters): a key of this name that exists is kept"),
  preset: described(
    keyFields.preset,
    `a preset of scopes: ${Object.keys(presets).join(', ')} (give \`preset\` or \`scopes\`)`,
  ),
  scopes: described(keyFields.scopes, `scope names (or preset names), at most 20: ${scopes.join(', ')}`),
  environment: described(
    environmentSchema,
    '`development`: a Sandbox key (`svc_sandbox_`, the Sandbox control plane); `production`: a live key (`svc_live_`)',
  ),
})

/** The rules of POST /auth/api-keys that span fields: scopes or a preset, each a known one. */
function seedKeyIssues(raw: unknown): SeedRuleIssue[] {
  const parsed = seedKeySchema.safeParse(raw)
  if (!parsed.success) return [] // its own problems are listed already
  const { environment: _, ...body } = parsed.data
  const result = createKeySchema.safeParse(body)
  if (!result.success) return result.error.issues
  try {
    resolveScopes(body.scopes ?? [], body.preset)
    return []
  } catch (error) {
    if (error instanceof z.ZodError) return error.issues
    throw error
  }
}

/**
 * The rules of POST /apis/{id}/endpoints that span fields, on the body the seed sends for each endpoint of one API:
 * its accept (scheme, transfer method, flow, sponsoring, amount), a development API's network and asset, and one
 * endpoint per route.
 */
function seedEndpointIssues(api: unknown): SeedRuleIssue[] {
  if (typeof api !== 'object' || api === null) return []
  const { environment: rawEnvironment, endpoints } = api as { environment?: unknown; endpoints?: unknown }
  const environment = environmentSchema.safeParse(rawEnvironment)
  if (!environment.success || !Array.isArray(endpoints)) return []
  const local = environment.data === 'development' ? { network: sandboxNetwork, address: usdcAddress } : undefined
  const routes = new Map<string, number>()
  return endpoints.flatMap((raw: unknown, index): SeedRuleIssue[] => {
    const parsed = seedEndpointSchema.safeParse(raw)
    if (!parsed.success) return [] // its own problems are listed already
    const at = ['endpoints', index]
    const issues: SeedRuleIssue[] = []
    const route = `${parsed.data.method} ${parsed.data.path_pattern}`
    const first = routes.get(route)
    if (first !== undefined)
      issues.push({
        path: at,
        message: `the same route as endpoints[${first}] (${route}): an API has one endpoint per method and path`,
      })
    else routes.set(route, index)
    const { body, accept } = seedEndpointBody(parsed.data, local)
    const result = createEndpointSchema.safeParse(body)
    if (!result.success)
      for (const issue of result.error.issues)
        issues.push({ path: [...at, ...seedEndpointPath(issue.path)], message: seedWords(issue.message) })
    else if (local) {
      const problem = developmentAcceptProblem(accept, local.address)
      if (problem) issues.push({ path: [...at, problem.field], message: problem.message })
    }
    return issues
  })
}

/** Every problem the control plane's cross-field rules find in a seed document (read as it is, before its schema). */
export function seedRuleIssues(document: unknown): SeedRuleIssue[] {
  if (typeof document !== 'object' || document === null) return []
  const { keys, apis } = document as { keys?: unknown; apis?: unknown }
  const each = (list: unknown, name: string, check: (item: unknown) => SeedRuleIssue[]) =>
    Array.isArray(list)
      ? list.flatMap((item, index) => check(item).map((issue) => ({ ...issue, path: [name, index, ...issue.path] })))
      : []
  return [...each(keys, 'keys', seedKeyIssues), ...each(apis, 'apis', seedEndpointIssues)]
}

/**
 * A seed file (`svc up --seed FILE`): a seller account, its API keys and its paid APIs, made through the control plane
 * at start, idempotently. Every field's description is in the schema: `z.toJSONSchema(seedSchema, { io: 'input' })`
 * is schemas/seed.schema.json (test/docs/reference/seed.ts writes it, with docs/reference/seed.md).
 */
export const seedSchema = z
  .strictObject({
    account: described(
      z.strictObject({
        email: described(credentialsSchema.shape.email, "the seller's email"),
        password: described(credentialsSchema.shape.password, 'its password (8 to 1024 characters)'),
      }),
      'the seller account: signed up (verified at once) or, when it exists, logged in to',
    ),
    keys: described(
      z.array(seedKeySchema).default([]),
      "API keys to make for the seller, by name; a key of that name that exists is kept (its secret isn't shown again)",
    ),
    apis: described(
      z
        .array(
          z.strictObject({
            name: described(apiFields.name, "the API's name (1 to 100 characters)"),
            slug: described(
              apiFields.slug,
              "a DNS label (lower-case letters, digits, inner hyphens): the API's gateway is `http://{slug}.dev.localhost:PORT` (Sandbox) or `http://{slug}.localhost:PORT` (production); an API of this slug that exists is kept",
            ),
            environment: described(
              environmentSchema,
              '`development`: a Sandbox API, paid on the Sandbox chain; `production`: a production API, paid through the production facilitator',
            ),
            upstream_base_url: described(
              apiFields.upstream_base_url,
              'the upstream the gateway forwards paid requests to: an absolute http(s) URL without query or fragment. `{{demo_upstream}}` is the demo upstream svc serves itself',
            ),
            pay_to_address: described(apiFields.pay_to_address, 'the address payments go to (`0x` and 40 hex digits)'),
            discovery_guidance: described(
              apiFields.discovery_guidance,
              'text for buyers and agents: in discovery documents and on the API page (at most 10000 characters), or null',
            ),
            discovery_contact_email: described(
              apiFields.discovery_contact_email,
              'a contact email for discovery documents, or null',
            ),
            endpoints: described(
              // prefault, not default: the JSON Schema of an input that transforms (a method, an address) keeps no default.
              z.array(seedEndpointSchema).prefault([]),
              'the paid endpoints, one per method and path; one that exists is kept',
            ),
          }),
        )
        .prefault([]),
      "the APIs to make, by slug; an existing API of that slug is kept, its upstream set to the seed's",
    ),
  })
  .meta({
    title: 'svc seed file',
    description:
      'A seed for `svc up --seed FILE`: a seller account, its API keys and its paid APIs, made at start (docs/reference/seed.md)',
  })

export type Seed = z.infer<typeof seedSchema>

/** The keys of each level of a seed, for "did you mean" (test/docs/seed-schema.test.ts: the schema's own). */
export const seedKeys: SeedKeys = {
  top: ['account', 'keys', 'apis'],
  account: ['email', 'password'],
  key: ['name', 'preset', 'scopes', 'environment'],
  api: [
    'name',
    'slug',
    'environment',
    'upstream_base_url',
    'pay_to_address',
    'discovery_guidance',
    'discovery_contact_email',
    'endpoints',
  ],
  endpoint: [
    'method',
    'path_pattern',
    'price',
    'description',
    'ttl',
    'request_schema',
    'response_schema',
    'network',
    'asset',
    'scheme',
    'transfer_method',
    'payment_flow',
    'capture_mode',
    'capture_deadline_seconds',
    'refund_deadline_seconds',
    'gas_sponsoring',
  ],
}

/** Every problem of a seed, one per line, or a usage error naming none. */
function seedError(file: string, problems: string[]): UsageError {
  const count = problems.length === 1 ? 'a problem' : `${problems.length} problems`
  return new UsageError(`seed file ${file} has ${count}; nothing was started:`, problems)
}

export type SeedResult = {
  email: string
  password: string
  jwt: string
  /** Keys made by this run, with their secrets (shown once); keys that existed already have no `key`. */
  keys: { name: string; environment: string; key?: string }[]
  /** `direct_url`: the gateway at `http://127.0.0.1:{port}/gateway/{host}`, with no name to resolve (not on svc serve). */
  apis: {
    slug: string
    environment: string
    gateway_url: string
    direct_url?: string
    created: boolean
    endpoints_created: number
  }[]
}

/** A seed file as read, and what the sandbox must serve before it can be applied. */
export type SeedFile = {
  file: string
  text: string
  /** The seed names `{{demo_upstream}}`: the sandbox serves the demo upstream (fixtures/demo-upstream.ts) for it. */
  needsDemoUpstream: boolean
}

/**
 * The seeds svc ships (`fixtures/<name>.yaml` or `fixtures/<name>-seed.yaml`: `demo`, `x402-e2e`), found by name when
 * no file of that name exists. `../fixtures/` from this module is the repo's fixtures/ in the sources and dist/fixtures/
 * in a build (bin/build.js copies the seeds there), from dist/sdk/ and the bundled dist/cli/ alike.
 */
export function resolveSeedFile(nameOrFile: string): string {
  if (existsSync(nameOrFile) || !/^[a-z0-9][a-z0-9-]*$/.test(nameOrFile)) return nameOrFile
  for (const candidate of [`${nameOrFile}.yaml`, `${nameOrFile}-seed.yaml`]) {
    const shipped = fileURLToPath(new URL(`../fixtures/${candidate}`, import.meta.url))
    if (existsSync(shipped)) return shipped
  }
  return nameOrFile
}

/**
 * Reads a seed file (YAML or JSON), or a shipped seed by name ({@link resolveSeedFile}), and checks all of it before
 * anything starts: an unreadable file or any problem in it is a usage error listing every problem with its line
 * (`{{demo_upstream}}` is checked as a URL).
 */
export function readSeedFile(nameOrFile: string): SeedFile {
  const file = resolveSeedFile(nameOrFile)
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new UsageError(
      `cannot read the seed file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    )
  }
  const problems = seedProblems(file, text.replaceAll('{{demo_upstream}}', 'http://127.0.0.1:1'), {
    schema: seedSchema,
    keys: seedKeys,
    rules: seedRuleIssues,
  })
  if (problems.length > 0) throw seedError(file, problems)
  return { file, text, needsDemoUpstream: text.includes('{{demo_upstream}}') }
}

/** Checks a seed, `{{demo_upstream}}` replaced with the demo upstream's URL; a bad seed is a usage error. */
export function parseSeed(seed: SeedFile, vars: { demo_upstream?: string | undefined } = {}): Seed {
  if (seed.needsDemoUpstream && !vars.demo_upstream)
    throw new UsageError(`seed file ${seed.file} names {{demo_upstream}}, but no demo upstream runs`)
  let document: unknown
  try {
    document = parse(seed.text.replaceAll('{{demo_upstream}}', vars.demo_upstream ?? ''))
  } catch (error) {
    throw new UsageError(`seed file ${seed.file}: not YAML or JSON (${(error as Error).message.split('\n')[0]})`)
  }
  const result = seedSchema.safeParse(document)
  const issue = result.error?.issues[0] ?? seedRuleIssues(document)[0]
  if (issue) throw new UsageError(`seed file ${seed.file}: ${issue.path.join('.') || '(top)'}: ${issue.message}`)
  return result.data!
}

/**
 * The body of POST /apis/{id}/endpoints for an endpoint of the seed (and its one accept): `price` is USDC, the
 * network and asset default to the Sandbox chain's USDC (`local`) in development.
 */
function seedEndpointBody(
  endpoint: SeedEndpoint,
  local: { network: string; address: string } | undefined,
): { body: EndpointInput; accept: Accept } {
  const {
    price,
    network,
    asset,
    scheme,
    transfer_method,
    payment_flow,
    gas_sponsoring,
    capture_mode,
    capture_deadline_seconds,
    refund_deadline_seconds,
    ...fields
  } = endpoint
  const extra = {
    ...(capture_mode ? { captureMode: capture_mode } : {}),
    ...(capture_deadline_seconds ? { captureDeadlineSeconds: capture_deadline_seconds } : {}),
    ...(refund_deadline_seconds ? { refundDeadlineSeconds: refund_deadline_seconds } : {}),
    ...(transfer_method ? { assetTransferMethod: transfer_method } : {}),
    ...(payment_flow ? { paymentFlow: payment_flow } : {}),
    ...(gas_sponsoring ? { gasSponsoring: gas_sponsoring } : {}),
  }
  const accept: Accept = {
    scheme: scheme ?? 'exact',
    network: network ?? local?.network ?? '',
    asset: asset ?? local?.address ?? '',
    amount: parseUsdc(price).toString(),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  }
  return { body: { ...fields, accepts: [accept] }, accept }
}

/**
 * Applies a seed through the control plane, idempotently: an existing account is logged into, existing keys (by name),
 * APIs (by slug) and endpoints (by method and path) are kept. An existing API whose upstream differs from the seed's
 * (the demo upstream listens on a new port each run) is pointed at the seed's upstream.
 */
export async function applySeed(
  seed: Seed,
  urls: { controlUrl: string; sandboxControlUrl: string },
): Promise<SeedResult> {
  const anonymous = createSvcClient({ baseUrl: urls.controlUrl })
  const { email, password } = seed.account
  const session = await anonymous.auth.signup(email, password).catch(async (error) => {
    if (error instanceof SvcApiError && error.status === 409) return anonymous.auth.login(email, password)
    throw error
  })
  if (!session.user.email_verified) {
    const { messages } = await anonymous.auth.outbox(email)
    const token = messages.find((m) => m.token)?.token
    if (token) await anonymous.auth.verifyEmail(token)
  }
  const as = (environment: 'production' | 'development'): SvcClient =>
    createSvcClient({
      baseUrl: environment === 'development' ? urls.sandboxControlUrl : urls.controlUrl,
      jwt: session.token,
      environment,
    })

  const result: SeedResult = { email, password, jwt: session.token, keys: [], apis: [] }
  // The keys and the APIs are made side by side (each in the seed's order): a seed's requests are most of its time.
  const makeKeys = async () => {
    for (const key of seed.keys) {
      const client = as(key.environment)
      const existing = (await client.keys.list()).find((k) => k.name === key.name && !k.revoked_at)
      if (existing) result.keys.push({ name: key.name, environment: key.environment })
      else {
        const created = await client.keys.create({ name: key.name, scopes: key.scopes, preset: key.preset })
        result.keys.push({ name: key.name, environment: key.environment, key: created.key })
      }
    }
  }

  const makeApis = async () => {
    for (const spec of seed.apis) {
      const client = as(spec.environment)
      const { endpoints, environment, ...fields } = spec
      const [apis, local] = await Promise.all([
        client.apis.list(),
        environment === 'development' ? client.config.localDev().then((config) => config.usdc) : undefined,
      ])
      let api = apis.find((a) => a.slug === spec.slug)
      const created = !api
      api ??= await client.apis.create({ ...fields, pay_to_mode: 'user_wallet' })
      if (api.upstream_base_url !== fields.upstream_base_url)
        api = await client.apis.update(api.id, { upstream_base_url: fields.upstream_base_url })
      // A new API has no endpoints to look for.
      const have = new Set(
        created ? [] : (await client.endpoints.list(api.id)).map((e) => `${e.method} ${e.path_pattern}`),
      )
      let made = 0
      for (const endpoint of endpoints) {
        if (have.has(`${endpoint.method.toUpperCase()} ${endpoint.path_pattern}`)) continue
        await client.endpoints.create(api.id, seedEndpointBody(endpoint, local).body)
        made++
      }
      result.apis.push({
        slug: api.slug,
        environment,
        gateway_url: api.gateway_url,
        ...(api.direct_url ? { direct_url: api.direct_url } : {}),
        created,
        endpoints_created: made,
      })
    }
  }
  await Promise.all([makeKeys(), makeApis()])
  return result
}
