import { SvcError, toSvcError } from '../core/errors.js'
import type { SeedResult } from '../sdk/seed.js'
import type { ReadyLine } from './ready-line.js'

/** `svc up --json`'s ready line, whose keys the environment is made from (cli/ready-line.ts). */
export type { ReadyLine }

/** A seeded API as the seed result names it; `direct_url` (127.0.0.1, no name resolution) where svc gives one. */
type SeededApi = SeedResult['apis'][number] & { direct_url?: string | undefined }

/** The buyer `svc exec` and `svc up --detach` fund with USDC: not the seeded seller's pay-to. */
export type Buyer = { address: string; private_key: string }

/**
 * The environment a CI job gets from `svc exec` and `svc status --env`, each name with what it holds. One list: the
 * docs' environment table (docs/ci.md) is this list (test/cli/sandbox-env.test.ts checks it), and {@link sandboxEnv}
 * sets no other name.
 * `<SLUG>`, `<NAME>`, `<TWIN>`: upper case, every other character `_` (`my-api` → `MY_API`).
 */
export const sandboxEnvNames = [
  [
    'SVC_BASE_URL',
    'the control plane the CLI talks to: the Sandbox one (`svc_sandbox_` keys), the production one for a seeded `svc_live_` key',
  ],
  ['SVC_CONTROL_URL', 'the production control plane (`svc_live_` keys)'],
  ['SVC_SANDBOX_CONTROL_URL', 'the Sandbox control plane (`svc_sandbox_` keys)'],
  ['SVC_GATEWAY_PORT', "the gateway's port (also the control planes')"],
  [
    'SVC_GATEWAY_URL_TEMPLATE',
    "a Sandbox API's gateway URL with `{slug}` for its slug: `http://{slug}.dev.localhost:PORT`",
  ],
  ['SVC_API_<SLUG>_URL', "each seeded API's gateway URL (`http://weather.dev.localhost:PORT`)"],
  [
    'SVC_API_<SLUG>_DIRECT_URL',
    "each seeded API's gateway URL on 127.0.0.1, which needs no name resolution (where svc gives one)",
  ],
  [
    'RESOURCE_SERVER_URL',
    "the first seeded API's gateway URL, direct where there is one (x402's client examples read it)",
  ],
  ['SVC_RPC_URL', 'the Sandbox chain RPC (`svc pay` reads it)'],
  ['SVC_CHAIN_MANAGER_URL', 'the chain manager: `POST /faucet {"address": "0x…"}`'],
  [
    'SVC_SANDBOX_FACILITATOR_URL',
    "the Sandbox chain's x402 facilitator (`SVC_FACILITATOR_URL` is `svc up`'s production facilitator)",
  ],
  ['FACILITATOR_URL', "the same facilitator (x402's server examples read it)"],
  ['SVC_NETWORK', 'the Sandbox network: `eip155:845320402`'],
  ['SVC_CHAIN_ID', 'its chain id: `845320402`'],
  ['SVC_USDC_ADDRESS', 'the Sandbox USDC (EIP-3009, 6 decimals)'],
  ['SVC_EVM_PRIVATE_KEY', "a buyer funded with 10 ETH and 1000 USDC (`svc pay` reads it); not a seller's pay-to"],
  ['EVM_PRIVATE_KEY', "the same buyer's key (x402's client examples read it)"],
  ['SVC_BUYER_ADDRESS', "the buyer's address"],
  ['SVC_SELLER_EMAIL', "the seeded seller's email"],
  ['SVC_SELLER_PASSWORD', "the seeded seller's password (`svc login`)"],
  ['SVC_JWT', "the seeded seller's session JWT (the CLI reads it)"],
  ['SVC_API_KEY', "the seeded seller's first new API key, a Sandbox one first (the CLI reads it)"],
  ['SVC_KEY_<NAME>', 'each new API key of the seed, by its name (`demo automation` → `SVC_KEY_DEMO_AUTOMATION`)'],
  ['SVC_TWIN_<TWIN>_RPC_URL', "each twin's RPC (`svc up --twin base-sepolia` → `SVC_TWIN_BASE_SEPOLIA_RPC_URL`)"],
  ['SVC_TWIN_<TWIN>_NETWORK', "each twin's network"],
  ['SVC_TWIN_<TWIN>_CHAIN_ID', "each twin's chain id"],
  ['SVC_TWIN_<TWIN>_USDC_ADDRESS', "each twin's USDC"],
] as const satisfies readonly (readonly [string, string])[]

/** `my-api` → `MY_API`: a name part of an environment variable. */
export const envPart = (text: string): string => text.toUpperCase().replace(/[^A-Z0-9]/g, '_')

/** The sandbox a ready line, its seed and its buyer describe, as environment variables ({@link sandboxEnvNames}). */
export function sandboxEnv(ready: ReadyLine, seed?: SeedResult, buyer?: Buyer): Record<string, string> {
  const apis = (seed?.apis ?? []) as SeededApi[]
  const keys = (seed?.keys ?? []).filter((key) => key.key !== undefined)
  const apiKey = keys.find((key) => key.environment === 'development') ?? keys[0]
  const env: Record<string, string> = {
    SVC_BASE_URL: apiKey?.environment === 'production' ? ready.control_url : ready.sandbox_control_url,
    SVC_CONTROL_URL: ready.control_url,
    SVC_SANDBOX_CONTROL_URL: ready.sandbox_control_url,
    SVC_GATEWAY_PORT: String(ready.gateway_port),
    SVC_GATEWAY_URL_TEMPLATE: `http://{slug}.${ready.sandbox_platform_domain}:${ready.gateway_port}`,
  }
  for (const api of apis) {
    env[`SVC_API_${envPart(api.slug)}_URL`] = api.gateway_url
    if (api.direct_url) env[`SVC_API_${envPart(api.slug)}_DIRECT_URL`] = api.direct_url
  }
  if (apis[0]) env.RESOURCE_SERVER_URL = apis[0].direct_url ?? apis[0].gateway_url
  Object.assign(env, {
    SVC_RPC_URL: ready.rpc_url,
    SVC_CHAIN_MANAGER_URL: ready.chain_manager_url,
    SVC_SANDBOX_FACILITATOR_URL: ready.facilitator_url,
    FACILITATOR_URL: ready.facilitator_url,
    SVC_NETWORK: ready.network,
    SVC_CHAIN_ID: String(ready.chain_id),
    SVC_USDC_ADDRESS: ready.usdc,
  })
  if (buyer)
    Object.assign(env, {
      SVC_EVM_PRIVATE_KEY: buyer.private_key,
      EVM_PRIVATE_KEY: buyer.private_key,
      SVC_BUYER_ADDRESS: buyer.address,
    })
  if (seed) Object.assign(env, { SVC_SELLER_EMAIL: seed.email, SVC_SELLER_PASSWORD: seed.password, SVC_JWT: seed.jwt })
  if (apiKey?.key) env.SVC_API_KEY = apiKey.key
  for (const key of keys) env[`SVC_KEY_${envPart(key.name)}`] = key.key!
  for (const twin of ready.twins) {
    const prefix = `SVC_TWIN_${envPart(twin.name)}`
    Object.assign(env, {
      [`${prefix}_RPC_URL`]: twin.rpc_url,
      [`${prefix}_NETWORK`]: twin.network,
      [`${prefix}_CHAIN_ID`]: String(twin.chain_id),
      [`${prefix}_USDC_ADDRESS`]: twin.usdc,
    })
  }
  return env
}

/** `export NAME='value'` lines for a POSIX shell (`eval "$(svc status --env)"`): every value single-quoted. */
export function shellExports(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}='${value.replaceAll("'", `'\\''`)}'\n`)
    .join('')
}

/**
 * `NAME=value` lines of a dotenv file (docker compose `env_file`, python-dotenv, `$GITHUB_ENV`): a value with nothing
 * but URL-safe characters as it is, another double-quoted.
 */
export function dotenvLines(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([name, value]) =>
      /^[\w.:/@+,=%{}-]*$/.test(value)
        ? `${name}=${value}\n`
        : `${name}="${value.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"\n`,
    )
    .join('')
}

/** The README's table of {@link sandboxEnvNames}. */
export function sandboxEnvTable(): string {
  return [
    '| Variable | What it holds |',
    '| --- | --- |',
    ...sandboxEnvNames.map(([n, what]) => `| \`${n}\` | ${what} |`),
  ]
    .join('\n')
    .concat('\n')
}

/**
 * A new buyer's key: a fresh one, never the seeded seller's pay-to or its Sandbox wallet. Made once the chain is up
 * (the chain's own keys have loaded viem's key code and its tables by then), and funded at once ({@link fundBuyer}).
 */
export async function createBuyer(): Promise<Buyer> {
  const { generatePrivateKey, privateKeyToAccount } = await import('./viem-keys.js')
  const privateKey = generatePrivateKey()
  return { address: privateKeyToAccount(privateKey).address, private_key: privateKey }
}

/**
 * Funds a buyer with the faucet's default ETH and USDC (10 ETH, 1000 USDC), as `startSandbox()` funds its buyer: the
 * chain manager's `fund`, in the process that runs svc (what `POST /faucet {"address": …}` does), started as soon as
 * the chain is up, beside the rest of the start. No Permit2 approval (it would add a transaction to every start): Permit2
 * routes are paid with the EIP-2612 permit the gateway sponsors, or after `svc faucet ADDRESS --approve-permit2`.
 */
export async function fundBuyer(
  manager: { fund(address: `0x${string}`): Promise<unknown> },
  buyer: Buyer | Promise<Buyer>,
): Promise<Buyer> {
  const { address, private_key } = await buyer
  try {
    await manager.fund(address as `0x${string}`)
  } catch (error) {
    throw new SvcError(`the chain manager did not fund the buyer: ${toSvcError(error).message}`, { cause: error })
  }
  return { address, private_key }
}
