import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { parseUsdc } from '../core/sandbox-usdc.js'
import { z } from 'zod'
import { createSvcClient, SvcApiError, type SvcClient } from './client.js'
import type { Accept } from './types.js'
import { UsageError } from '../core/errors.js'
import { seedProblems, type SeedKeys } from './seed-check.js'

const environmentSchema = z.enum(['production', 'development']).default('development')

const seedSchema = z.strictObject({
  account: z.strictObject({ email: z.email(), password: z.string().min(8) }),
  keys: z
    .array(
      z.strictObject({
        name: z.string().min(1),
        preset: z.string().optional(),
        scopes: z.array(z.string()).optional(),
        environment: environmentSchema,
      }),
    )
    .default([]),
  apis: z
    .array(
      z.strictObject({
        name: z.string(),
        slug: z.string(),
        environment: environmentSchema,
        upstream_base_url: z.string(),
        pay_to_address: z.string(),
        discovery_guidance: z.string().optional(),
        discovery_contact_email: z.string().optional(),
        endpoints: z
          .array(
            z.strictObject({
              method: z.string(),
              path_pattern: z.string(),
              /** USDC, decimal (sandbox USDC in development). */
              price: z.string().regex(/^\d+(\.\d{1,6})?$/, 'a USDC amount as a string, at most 6 decimals: "0.01"'),
              description: z.string().optional(),
              ttl: z.number().int().positive().optional(),
              request_schema: z.record(z.string(), z.unknown()).optional(),
              response_schema: z.record(z.string(), z.unknown()).optional(),
              /** Production only: the accept's network and asset. */
              network: z.string().optional(),
              asset: z.string().optional(),
              /** `exact` (price is the price) or `upto` (price is the most a buyer signs for). @defaultValue exact */
              scheme: z.enum(['exact', 'upto', 'batch-settlement']).optional(),
              /** `extra.assetTransferMethod`: eip3009 (exact's default) or permit2 (upto's only one). */
              transfer_method: z.enum(['eip3009', 'permit2']).optional(),
              /** `extra.paymentFlow` as @x402/core 2.27 names it: `authorization` (verify, upstream, settle) or `upfront`. */
              payment_flow: z.enum(['authorization', 'upfront']).optional(),
              /** `extra.gasSponsoring` (Permit2): how a buyer without an approval is sponsored. @defaultValue both */
              gas_sponsoring: z.enum(['eip2612GasSponsoring', 'erc20ApprovalGasSponsoring']).optional(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
})

export type Seed = z.infer<typeof seedSchema>

const seedKeys: SeedKeys = {
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
  apis: { slug: string; environment: string; gateway_url: string; created: boolean; endpoints_created: number }[]
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
  const problems = seedProblems(file, text.replaceAll('{{demo_upstream}}', 'http://127.0.0.1:1'), seedSchema, seedKeys)
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
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new UsageError(`seed file ${seed.file}: ${issue.path.join('.') || '(top)'}: ${issue.message}`)
  }
  return result.data
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
  for (const key of seed.keys) {
    const client = as(key.environment)
    const existing = (await client.keys.list()).find((k) => k.name === key.name && !k.revoked_at)
    if (existing) result.keys.push({ name: key.name, environment: key.environment })
    else {
      const created = await client.keys.create({ name: key.name, scopes: key.scopes, preset: key.preset })
      result.keys.push({ name: key.name, environment: key.environment, key: created.key })
    }
  }

  for (const spec of seed.apis) {
    const client = as(spec.environment)
    const { endpoints, environment, ...fields } = spec
    let api = (await client.apis.list()).find((a) => a.slug === spec.slug)
    const created = !api
    api ??= await client.apis.create({ ...fields, pay_to_mode: 'user_wallet' })
    if (api.upstream_base_url !== fields.upstream_base_url)
      api = await client.apis.update(api.id, { upstream_base_url: fields.upstream_base_url })
    const local = environment === 'development' ? (await client.config.localDev()).usdc : undefined
    const have = new Set((await client.endpoints.list(api.id)).map((e) => `${e.method} ${e.path_pattern}`))
    let made = 0
    for (const {
      price,
      network,
      asset,
      scheme,
      transfer_method,
      payment_flow,
      gas_sponsoring,
      ...endpoint
    } of endpoints) {
      if (have.has(`${endpoint.method.toUpperCase()} ${endpoint.path_pattern}`)) continue
      const extra = {
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
      await client.endpoints.create(api.id, { ...endpoint, accepts: [accept] })
      made++
    }
    result.apis.push({ slug: api.slug, environment, gateway_url: api.gateway_url, created, endpoints_created: made })
  }
  return result
}
