import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { createCli } from './harness.js'

// Issue 20, item 9: a bad seed costs one run, not one start per mistake: every problem, with its file, line and
// path, before anything starts; unknown keys with what they probably meant; exit code 2.
const seed = `account:
  email: not-an-email
  password: long-enough-pw
apis:
  - name: Weather
    slug: weather
    upstream_base_url: "{{demo_upstream}}"
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    endpoints:
      - method: GET
        path: /weather/{city}
        prise: "0.01"
      - method: GET
        path_pattern: /quote
        price: cheap
`

test('svc up --seed with a bad file lists every problem with file, line and path, starts nothing, exits 2', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-seed-')), 'bad-seed.yaml')
  writeFileSync(file, seed)
  const cli = createCli()
  const result = await cli.spawn(['up', '--ephemeral', '--port', '0', '--seed', file])
  expect(result.code).toBe(2)
  expect(result.stdout).toBe('')
  expect(result.stderr.split('\n')).toEqual([
    `svc: seed file ${file} has 6 problems; nothing was started:`,
    `  ${file}:2 account.email: not an email address`,
    `  ${file}:10 apis[0].endpoints[0].path_pattern: missing`,
    `  ${file}:10 apis[0].endpoints[0].price: missing`,
    `  ${file}:11 apis[0].endpoints[0].path: unknown key: did you mean \`path_pattern\`?`,
    `  ${file}:12 apis[0].endpoints[0].prise: unknown key: did you mean \`price\`?`,
    `  ${file}:15 apis[0].endpoints[1].price: a USDC amount as a string, at most 6 decimals: "0.01"`,
    '',
  ])

  const json = await cli.spawn(['up', '--ephemeral', '--port', '0', '--json', '--seed', file])
  expect(json.code).toBe(2)
  expect(JSON.parse(json.stderr).details).toHaveLength(6)
})

test('a file that is not YAML names its line', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-seed-')), 'broken.yaml')
  writeFileSync(file, 'account:\n  email: a@b.c\n   password: [\n')
  const result = await createCli().spawn(['up', '--ephemeral', '--port', '0', '--seed', file])
  expect(result.code).toBe(2)
  expect(result.stderr).toMatch(
    new RegExp(
      `^svc: seed file ${file} has (a problem|\\d+ problems); nothing was started:\\n  ${file}:\\d+: not YAML or JSON`,
    ),
  )
})

// Issue 35, item 4: a value the control plane refuses (a slug that is not a DNS label, a development API on another
// network, …) passed the whole-file check, svc started, then stopped on the control plane's 400: one start per
// mistake. The whole-file check applies the control plane's own rules, each named with its file, line and path.
const valid = `account:
  email: seed@svc.test
  password: long-enough-pw
keys:
  - name: ci
    preset: readonly
apis:
  - name: Weather
    slug: weather
    upstream_base_url: "http://127.0.0.1:9"
    pay_to_address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906"
    endpoints:
      - method: GET
        path_pattern: /weather/{city}
        price: "0.01"
`

/** `valid` with line `line` (1-based) replaced by `lines` (or `lines` added after the last line when line is 0). */
function edited(line: number, ...lines: string[]): string {
  const all = valid.trimEnd().split('\n')
  if (line === 0) all.push(...lines)
  else all.splice(line - 1, 1, ...lines)
  return `${all.join('\n')}\n`
}

const badValues: { what: string; seed: string; problem: RegExp }[] = [
  {
    what: 'a slug that is not a DNS label',
    seed: edited(9, '    slug: Broken Slug'),
    problem: /:9 apis\[0\]\.slug: must be a DNS label: 1-63 lower-case letters, digits and inner hyphens$/,
  },
  { what: 'a reserved slug', seed: edited(9, '    slug: admin'), problem: /:9 apis\[0\]\.slug: "admin" is reserved$/ },
  {
    what: 'an upstream that is not an http URL',
    seed: edited(10, '    upstream_base_url: "ftp://example.com/x?y=1"'),
    problem: /:10 apis\[0\]\.upstream_base_url: must be an absolute http or https URL without query or fragment$/,
  },
  {
    what: 'a pay-to address that is not an address',
    seed: edited(11, '    pay_to_address: "0x1234"'),
    problem: /:11 apis\[0\]\.pay_to_address: not an EVM address/,
  },
  {
    what: 'a password the signup refuses',
    seed: edited(3, '  password: short'),
    problem: /:3 account\.password: at least 8 characters$/,
  },
  {
    what: 'an unknown key preset',
    seed: edited(6, '    preset: everything'),
    problem: /:6 keys\[0\]\.preset: unknown scope or preset "everything"/,
  },
  {
    what: 'a key without scopes or a preset',
    seed: edited(6),
    problem: /:5 keys\[0\]\.scopes: give scopes or a preset$/,
  },
  {
    what: 'an unknown method',
    seed: edited(13, '      - method: FETCH'),
    problem: /:13 apis\[0\]\.endpoints\[0\]\.method: must be one of GET, POST/,
  },
  {
    what: 'a path pattern without its leading slash',
    seed: edited(14, '        path_pattern: weather/{city}'),
    problem: /:14 apis\[0\]\.endpoints\[0\]\.path_pattern: must start with "\/"$/,
  },
  {
    what: 'a price of 0',
    seed: edited(15, '        price: "0"'),
    problem: /:15 apis\[0\]\.endpoints\[0\]\.price: must be a positive integer of atomic units/,
  },
  {
    what: 'another network on a development API',
    seed: edited(0, '        network: eip155:84532'),
    problem: /:16 apis\[0\]\.endpoints\[0\]\.network: a development API takes only network "eip155:845320402"/,
  },
  {
    what: 'a network that is not CAIP-2',
    seed: edited(0, '        network: base'),
    problem: /:16 apis\[0\]\.endpoints\[0\]\.network: must be a CAIP-2 EVM network id/,
  },
  {
    what: 'another asset on a development API',
    seed: edited(0, '        asset: "0x000000000000000000000000000000000000bEEF"'),
    problem: /:16 apis\[0\]\.endpoints\[0\]\.asset: a development API takes only the Sandbox USDC 0x/,
  },
  {
    what: 'upto through EIP-3009',
    seed: edited(0, '        scheme: upto', '        transfer_method: eip3009'),
    problem: /:17 apis\[0\]\.endpoints\[0\]\.transfer_method: the upto scheme pays through Permit2 only/,
  },
  {
    what: 'upto paid upfront',
    seed: edited(0, '        scheme: upto', '        payment_flow: upfront'),
    problem: /:17 apis\[0\]\.endpoints\[0\]\.payment_flow: the upto scheme .* cannot be paid upfront/,
  },
  {
    what: 'gas sponsoring without Permit2',
    seed: edited(0, '        gas_sponsoring: eip2612GasSponsoring'),
    problem:
      /:16 apis\[0\]\.endpoints\[0\]\.gas_sponsoring: sponsors a Permit2 approval: set transfer_method to "permit2"$/,
  },
  {
    what: 'a ttl of 0',
    seed: edited(0, '        ttl: 0'),
    problem: /:16 apis\[0\]\.endpoints\[0\]\.ttl: between 1 and 31536000 seconds$/,
  },
  {
    what: 'a response schema that is not a JSON Schema',
    seed: edited(0, '        response_schema: { type: 12 }'),
    problem: /:16 apis\[0\]\.endpoints\[0\]\.response_schema: not a valid JSON Schema/,
  },
  {
    what: 'the same route twice',
    seed: edited(0, '      - method: get', '        path_pattern: /weather/{city}', '        price: "0.02"'),
    problem:
      /:16 apis\[0\]\.endpoints\[1\]: the same route as endpoints\[0\] \(GET \/weather\/\{city\}\): an API has one endpoint per method and path$/,
  },
]

describe("the whole-file check applies the control plane's rules to every value, before anything starts", () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-seed-'))
  test('the valid seed these tests break passes the check', async () => {
    const { readSeedFile, parseSeed } = await import('../../sdk/seed.js')
    const file = join(dir, 'valid.yaml')
    writeFileSync(file, valid)
    expect(parseSeed(readSeedFile(file)).apis[0]!.slug).toBe('weather')
  })

  test.each(badValues)(
    '$what: one line naming file:line and the path, exit 2, nothing started',
    async ({ what, seed, problem }) => {
      const file = join(dir, `${what.replaceAll(/\W+/g, '-')}.yaml`)
      writeFileSync(file, seed)
      const started = Date.now()
      const result = await createCli().spawn(['up', '--ephemeral', '--port', '0', '--no-tui', '--seed', file])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      const lines = result.stderr.trimEnd().split('\n')
      expect(lines[0]).toBe(`svc: seed file ${file} has a problem; nothing was started:`)
      expect(lines).toHaveLength(2)
      expect(lines[1]!.startsWith(`  ${file}:`)).toBe(true)
      expect(lines[1]).toMatch(problem)
      // Nothing started: no chain was spawned, no "applying the seed" said.
      expect(result.stderr).not.toContain('applying the seed')
      expect(Date.now() - started).toBeLessThan(30_000)
    },
  )
})
