import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import { parseSeed, readSeedFile, resolveSeedFile } from '../../sdk/seed.js'
import { x402E2eRoutes } from '../../fixtures/x402-e2e-upstream.js'

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url))

describe('shipped seeds by name', () => {
  test('`x402-e2e` and `demo` are the seeds in fixtures/; a file path or an unknown name is left as it is', () => {
    expect(resolveSeedFile('x402-e2e')).toBe(fixture('x402-e2e.yaml'))
    expect(resolveSeedFile('demo')).toBe(fixture('demo-seed.yaml'))
    expect(resolveSeedFile('fixtures/demo-seed.yaml')).toBe('fixtures/demo-seed.yaml')
    expect(resolveSeedFile('no-such-seed')).toBe('no-such-seed')
    expect(() => readSeedFile('no-such-seed')).toThrow('cannot read the seed file no-such-seed: ENOENT')
  })

  test('the x402-e2e seed lists every catalog route of its upstream, with the scheme, method and flow it names', () => {
    const seed = parseSeed(readSeedFile('x402-e2e'), { demo_upstream: 'http://127.0.0.1:9' })
    const [api] = seed.apis
    expect(api!.upstream_base_url).toBe('http://127.0.0.1:9/x402-e2e')
    expect(api!.endpoints.map((e) => e.path_pattern)).toEqual(x402E2eRoutes.map((r) => r.path))
    expect(api!.endpoints.find((e) => e.path_pattern === '/exact/evm/permit2/upfront')).toMatchObject({
      transfer_method: 'permit2',
      payment_flow: 'upfront',
    })
    for (const upto of api!.endpoints.filter((e) => e.path_pattern.startsWith('/upto/')))
      expect(upto).toMatchObject({ scheme: 'upto', price: '0.002' })
  })

  test('a seed naming a scheme, transfer method or payment flow svc does not know is refused before anything starts', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'svc-seed-')), 'flows.yaml')
    writeFileSync(
      file,
      `account: { email: a@svc.test, password: long-enough }
apis:
  - name: A
    slug: a
    upstream_base_url: http://127.0.0.1:1
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    endpoints:
      - { method: GET, path_pattern: /a, price: "0.01", scheme: deferred, transfer_method: permit3, payment_flow: later }
`,
    )
    expect(() => readSeedFile(file)).toThrow(/3 problems/)
  })
})
