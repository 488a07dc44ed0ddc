/**
 * The docs' Python buyer (docs/ci.md "Python", the block `pay_direct.py`), run as the page says: written into a project
 * with svc installed and run under `svc exec` (the block `pay-python.sh`), then under `svc up --detach` + `svc status
 * --env` (the block `detach.sh`). Python 3's standard library alone, with no name to resolve: urllib gets the 402 at the
 * demo API's direct URL (http://127.0.0.1:PORT/gateway/weather.dev.localhost), the script signs the EIP-3009
 * authorization itself (Keccak-256, secp256k1, EIP-712 in plain Python), pays, and finds the transfer on the chain.
 */
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { docBlock } from '../docs/blocks.js'
import { ciBlocks, exited, leftovers, processesOf, project } from './ci-project.js'

/** The blocks run `python3` from PATH. */
const hasPython = spawnSync('python3', ['--version']).status === 0

/** A project with svc installed and the page's Python file in it. */
function pythonProject() {
  const p = project()
  leftovers.push(p.configDir)
  writeFileSync(join(p.dir, 'pay_direct.py'), ciBlocks['pay_direct.py']!)
  return { cwd: p.dir, env: p.env, configDir: p.configDir }
}

type Seen = {
  unpaid_status: number
  resource_url: string
  paid_status: number
  answer: Record<string, unknown>
  settlement: { success: boolean; transaction: string; payer: string }
  buyer: string
  receipt_status: string
}

/** What the script printed: its one JSON line; it paid, and the transfer is on the chain. */
function paid(stdout: string): Seen {
  const line = stdout.split('\n').find((printed) => printed.startsWith('{"unpaid_status"'))
  expect(line, stdout).toBeDefined()
  const seen = JSON.parse(line!) as Seen
  expect(seen).toMatchObject({
    unpaid_status: 402,
    paid_status: 200,
    answer: { city: 'lisbon', source: 'svc demo upstream' },
    settlement: { success: true, payer: seen.buyer },
    receipt_status: '0x1',
  })
  expect(seen.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/gateway\/weather\.dev\.localhost\/weather\/lisbon$/)
  expect(seen.settlement.transaction).toMatch(/^0x[0-9a-f]{64}$/)
  return seen
}

/** The same keys at every level: the page's sample output is what the script prints. */
const shape = (value: unknown): unknown =>
  value && typeof value === 'object'
    ? Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shape(inner)]))
    : typeof value

describe.runIf(hasPython)("the docs' Python buyer, standard library only", { timeout: 180_000 }, () => {
  test('`svc exec -- python3 pay_direct.py` pays the demo API at its direct URL; the sample output is its shape', async () => {
    const p = pythonProject()
    const result = await exited('bash', ['-eo', 'pipefail', '-c', ciBlocks['pay-python.sh']!], p)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe('')
    const seen = paid(result.stdout)
    expect(seen.buyer).toMatch(/^0x[0-9a-f]{40}$/)
    expect(shape(JSON.parse(docBlock('pay_direct.py output').code))).toEqual(shape(seen))
    expect(processesOf(p.configDir)).toEqual([])
  })

  test('under `svc up --detach` and `svc status --env`, then `svc down`', async () => {
    const p = pythonProject()
    const result = await exited('bash', ['-eo', 'pipefail', '-c', ciBlocks['detach.sh']!], p)
    expect(result.code, result.stderr).toBe(0)
    paid(result.stdout)
    expect(result.stdout).toMatch(/^stopped default \(pid \d+\)$/m)
    expect(processesOf(p.configDir)).toEqual([])
  })
})
