import { readFileSync } from 'node:fs'
import { parseUnits } from 'viem'
import { parse } from 'yaml'
import { usdcDecimals } from '../chain/constants.js'
import { z } from 'zod'
import { createSvcClient, SvcApiError, type SvcClient } from '../sdk/client.js'
import type { Accept } from '../sdk/types.js'
import { SvcError } from './errors.js'

const environmentSchema = z.enum(['production', 'development']).default('development')

const seedSchema = z.strictObject({
  account: z.strictObject({ email: z.email(), password: z.string().min(8) }),
  keys: z
    .array(z.strictObject({ name: z.string().min(1), preset: z.string().optional(), scopes: z.array(z.string()).optional(), environment: environmentSchema }))
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
              price: z.string().regex(/^\d+(\.\d{1,6})?$/),
              description: z.string().optional(),
              ttl: z.number().int().positive().optional(),
              request_schema: z.record(z.string(), z.unknown()).optional(),
              response_schema: z.record(z.string(), z.unknown()).optional(),
              /** Production only: the accept's network and asset. */
              network: z.string().optional(),
              asset: z.string().optional(),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
})

export type Seed = z.infer<typeof seedSchema>

export type SeedResult = {
  email: string
  password: string
  jwt: string
  /** Keys made by this run, with their secrets (shown once); keys that existed already have no `key`. */
  keys: { name: string; environment: string; key?: string }[]
  apis: { slug: string; environment: string; gateway_url: string; created: boolean; endpoints_created: number }[]
}

/** Reads and checks a seed file (YAML or JSON); `{{demo_upstream}}` is replaced with the demo upstream URL. */
export function readSeedFile(file: string, vars: { demo_upstream: string }): Seed {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    throw new SvcError(`cannot read the seed file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, { exitCode: 2 })
  }
  const result = seedSchema.safeParse(parse(text.replaceAll('{{demo_upstream}}', vars.demo_upstream)))
  if (!result.success) {
    const issue = result.error.issues[0]!
    throw new SvcError(`seed file ${file}: ${issue.path.join('.') || '(top)'}: ${issue.message}`, { exitCode: 2 })
  }
  return result.data
}

const usdc = (price: string) => parseUnits(price, usdcDecimals).toString()

/**
 * Applies a seed through the control plane, idempotently: an existing account is logged into, existing keys (by name),
 * APIs (by slug) and endpoints (by method and path) are left alone.
 */
export async function applySeed(seed: Seed, urls: { controlUrl: string; sandboxControlUrl: string }): Promise<SeedResult> {
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
    createSvcClient({ baseUrl: environment === 'development' ? urls.sandboxControlUrl : urls.controlUrl, jwt: session.token, environment })

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
    const local = environment === 'development' ? (await client.config.localDev()).usdc : undefined
    const have = new Set((await client.endpoints.list(api.id)).map((e) => `${e.method} ${e.path_pattern}`))
    let made = 0
    for (const { price, network, asset, ...endpoint } of endpoints) {
      if (have.has(`${endpoint.method.toUpperCase()} ${endpoint.path_pattern}`)) continue
      const accept: Accept = { scheme: 'exact', network: network ?? local?.network ?? '', asset: asset ?? local?.address ?? '', amount: usdc(price) }
      await client.endpoints.create(api.id, { ...endpoint, accepts: [accept] })
      made++
    }
    result.apis.push({ slug: api.slug, environment, gateway_url: api.gateway_url, created, endpoints_created: made })
  }
  return result
}
