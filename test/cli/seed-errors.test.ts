import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
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
    `  ${file}:2 account.email: Invalid email address`,
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
