import { spawnSync } from 'node:child_process'
import { describe, expect, test } from 'vitest'
import {
  dotenvLines,
  sandboxEnv,
  sandboxEnvNames,
  sandboxEnvTable,
  shellExports,
  type ReadyLine,
} from '../../cli/sandbox-env.js'
import type { SeedResult } from '../../sdk/seed.js'
import { docPages, pageText } from '../docs/blocks.js'

const ready: ReadyLine = {
  control_url: 'http://api.localhost:4020',
  sandbox_control_url: 'http://sandbox.localhost:4020',
  platform_domain: 'localhost',
  sandbox_platform_domain: 'dev.localhost',
  gateway_port: 4020,
  direct_gateway_base: 'http://127.0.0.1:4020/gateway',
  rpc_url: 'http://127.0.0.1:8545',
  facilitator_url: 'http://127.0.0.1:8546',
  chain_manager_url: 'http://127.0.0.1:8547',
  chain_id: 845320402,
  network: 'eip155:845320402',
  usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  twins: [
    { name: 'base-sepolia', network: 'eip155:84532', chain_id: 84532, rpc_url: 'http://127.0.0.1:1', usdc: '0x1' },
  ],
  data_dir: '/tmp/svc-x',
}
const seed: SeedResult = {
  email: 'demo@svc.test',
  password: "it's a 'quoted' $password \"x\"",
  jwt: 'eyJ.a.b',
  keys: [
    { name: 'old one', environment: 'development' },
    { name: 'demo automation', environment: 'development', key: 'svc_sandbox_abc' },
  ],
  apis: [
    {
      slug: 'my-weather',
      environment: 'development',
      gateway_url: 'http://my-weather.dev.localhost:4020',
      created: true,
      endpoints_created: 1,
      direct_url: 'http://127.0.0.1:4021',
    } as SeedResult['apis'][number],
    {
      slug: 'quotes',
      environment: 'development',
      gateway_url: 'http://quotes.dev.localhost:4020',
      created: true,
      endpoints_created: 1,
    },
  ],
}
const buyer = { address: '0xabc', private_key: `0x${'1'.repeat(64)}` }

/** A documented name as a pattern: `SVC_API_<SLUG>_URL` → /^SVC_API_[A-Z0-9_]+_URL$/. */
const pattern = (name: string) => new RegExp(`^${name.replace(/<[A-Z]+>/g, '[A-Z0-9_]+')}$`)

describe('the environment list', () => {
  const env = sandboxEnv(ready, seed, buyer)

  test('every name set is a documented one, and every documented name is set by a full sandbox', () => {
    const patterns = sandboxEnvNames.map(([name]) => pattern(name))
    for (const name of Object.keys(env))
      expect(
        patterns.some((p) => p.test(name)),
        name,
      ).toBe(true)
    for (const [name] of sandboxEnvNames)
      expect(
        Object.keys(env).some((set) => pattern(name).test(set)),
        name,
      ).toBe(true)
  })

  test('the values: URLs, the seeded APIs (direct first for RESOURCE_SERVER_URL), the buyer, the new keys only', () => {
    expect(env).toMatchObject({
      SVC_BASE_URL: 'http://sandbox.localhost:4020',
      SVC_API_MY_WEATHER_URL: 'http://my-weather.dev.localhost:4020',
      SVC_API_MY_WEATHER_DIRECT_URL: 'http://127.0.0.1:4021',
      SVC_API_QUOTES_URL: 'http://quotes.dev.localhost:4020',
      RESOURCE_SERVER_URL: 'http://127.0.0.1:4021',
      SVC_RPC_URL: 'http://127.0.0.1:8545',
      FACILITATOR_URL: 'http://127.0.0.1:8546',
      SVC_SANDBOX_FACILITATOR_URL: 'http://127.0.0.1:8546',
      SVC_EVM_PRIVATE_KEY: buyer.private_key,
      EVM_PRIVATE_KEY: buyer.private_key,
      SVC_API_KEY: 'svc_sandbox_abc',
      SVC_KEY_DEMO_AUTOMATION: 'svc_sandbox_abc',
      SVC_TWIN_BASE_SEPOLIA_CHAIN_ID: '84532',
      SVC_CHAIN_ID: '845320402',
    })
    expect(env).not.toHaveProperty('SVC_KEY_OLD_ONE')
    expect(env).not.toHaveProperty('SVC_API_QUOTES_DIRECT_URL')
    // Names svc itself reads with another meaning are never set.
    for (const name of ['SVC_FACILITATOR_URL', 'SVC_PORT', 'SVC_DATA_DIR', 'SVC_RPC'])
      expect(env).not.toHaveProperty(name)
  })

  test('without a seed or a buyer: the sandbox alone', () => {
    const bare = sandboxEnv({ ...ready, twins: [] })
    expect(Object.keys(bare)).not.toContain('SVC_JWT')
    expect(Object.keys(bare)).not.toContain('EVM_PRIVATE_KEY')
    expect(Object.keys(bare)).not.toContain('RESOURCE_SERVER_URL')
    expect(bare.SVC_RPC_URL).toBe(ready.rpc_url)
  })

  test('`export` lines give a POSIX shell every value exactly, quotes and dollars included', () => {
    const script = `${shellExports(env)}printf '%s' "$SVC_SELLER_PASSWORD"`
    const out = spawnSync('sh', ['-c', script], { encoding: 'utf8' })
    expect(out.stdout).toBe(seed.password)
  })

  test('dotenv lines: plain values as they are, others double-quoted', () => {
    const lines = dotenvLines(env)
    expect(lines).toContain('SVC_RPC_URL=http://127.0.0.1:8545\n')
    expect(lines).toContain(`SVC_SELLER_PASSWORD="it's a 'quoted' $password \\"x\\""\n`)
  })

  test("the docs' table is this list (the page with the `<!-- sandbox-env:` marker, docs/ci.md)", () => {
    const pages = docPages().filter((page) => pageText(page).includes('<!-- sandbox-env:'))
    expect(pages).toEqual(['docs/ci.md'])
    const text = pageText(pages[0]!)
    const marker = text.indexOf('<!-- sandbox-env:')
    const start = text.indexOf('| Variable |', marker)
    const end = text.indexOf('\n\n', start)
    expect(text.slice(start, end + 1)).toBe(sandboxEnvTable())
  })
})
