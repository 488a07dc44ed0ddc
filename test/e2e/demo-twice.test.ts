/**
 * The README's demo, twice, with a restart of `svc up` on the same data dir between: the demo seller logs in, takes
 * its funded Sandbox wallet, pays the demo API with `svc pay` and lists its settlements. The chain is kept in the
 * data dir, so after the restart the wallet still holds what the first run left, the demo API's upstream (a new
 * port each run) is reachable, and the first run's settlement is still current.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { createCli } from '../cli/harness.js'
import { docBlock } from '../docs/blocks.js'

const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-twice-'))
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

/**
 * The tour of docs/get-started.md (and the README's, the same lines): terminal 1 starts `svc up` with the demo seed,
 * terminal 2's lines run here one by one, as written but for the port (`:4020` → svc's) and `npx svc` → this svc.
 */
const terminal1 = docBlock('get-started/terminal-1.sh').code.trim()
const terminal2 = docBlock('get-started/terminal-2.sh')
  .code.trim()
  .split('\n')
  .filter((line) => !line.startsWith('#'))

/** One pass of the tour's terminal 2 against a running `svc up`; returns the wallet and its settlements. */
async function demo(svc: SvcProcess) {
  const cli = createCli({ SVC_BASE_URL: svc.ready.sandbox_control_url })
  const env: NodeJS.ProcessEnv = {}
  let paid = false
  for (const line of terminal2) {
    const exported = /^export (\w+)=\$\(npx svc (.*)\)$/.exec(line)
    const command = exported ? exported[2]! : /^npx svc (.*)$/.exec(line)?.[1]
    if (!command) throw new Error(`the tour's terminal 2 has a line this test cannot run: ${line}`)
    const args = command.replace(':4020/', `:${svc.ready.gateway_port}/`).split(/\s+/)
    // `svc pay` in a process of its own, as a buyer runs it; the others in this one (faster, the same CLI).
    const result = args[0] === 'pay' ? await cli.spawn(args, env) : await cli.run(args, env)
    expect(result.code, `${line}: ${result.stderr}`).toBe(0)
    if (exported) env[exported[1]!] = result.stdout.trim()
    if (args[0] === 'pay') {
      expect(result.stdout).toContain('HTTP 200')
      paid = true
    }
  }
  expect(paid, "the tour's terminal 2 pays").toBe(true)
  expect(env.SVC_EVM_PRIVATE_KEY).toMatch(/^0x[0-9a-f]{64}$/)
  const wallet = await cli.json(['sandbox-wallet', 'get'])
  expect(env.SVC_EVM_PRIVATE_KEY).toBe(wallet.private_key)
  const { settlements } = await cli.json(['settlements', '--sandbox'])
  const balances = await cli.json(['balances'])
  return { wallet, settlements, balances }
}

describe('the README demo', () => {
  test("the banner of `svc up --no-tui` has the lines of get-started's sample, in its order", async () => {
    const child = spawn(process.execPath, [svcBin, 'up', '--no-tui', '--ephemeral', '--port', '0'], {
      env: { ...process.env, CI: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout!.on('data', (chunk) => (out += chunk))
    await expect.poll(() => out, { timeout: 30_000 }).toContain('Press Ctrl-C to stop.')
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
    // Each line's label (up to its URL), and the first line's words but the figures and the path.
    const shape = (text: string) =>
      text
        .trim()
        .split('\n')
        .slice(0, 11)
        .map((line) =>
          line
            .replace(/(https?:\/\/|0x)\S*.*$/, '')
            .replace(/\d+ ms \((\w+) chain, data in .*\)$/, 'N ms ($1 chain, data in DIR)'),
        )
    const sample = docBlock('svc up banner').code
    expect(shape(out)).toEqual(shape(sample))
  })

  test('terminal 1 is `npm start` with the demo seed, the file this test starts svc with', () => {
    expect(terminal1).toBe('npm ci && npm start -- --seed fixtures/demo-seed.yaml')
    expect(seedFile.endsWith('/fixtures/demo-seed.yaml')).toBe(true)
  })

  test('runs twice in a row with a restart between, on the chain the data dir kept', async () => {
    const first = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, { ephemeral: false })
    running.push(first)
    const one = await demo(first)
    expect(one.settlements).toEqual([expect.objectContaining({ path: '/weather/paris', old_chain: false })])
    expect(BigInt(one.balances.usdc_base)).toBe(999_990_000n)
    expect(await first.stop()).toBe(0)

    const second = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, { ephemeral: false })
    running.push(second)
    expect(second.ready.seed.apis[0]).toMatchObject({ slug: 'weather', created: false })
    const two = await demo(second)
    expect(two.wallet.address).toBe(one.wallet.address)
    expect(two.settlements).toHaveLength(2)
    // The wallet kept the first run's balance (and was not funded again): the chain is the same.
    expect(BigInt(two.balances.usdc_base)).toBe(999_980_000n)
    expect(
      two.settlements.every(
        (s: { old_chain: boolean; chain_epoch: string }) =>
          !s.old_chain && s.chain_epoch === one.settlements[0].chain_epoch,
      ),
    ).toBe(true)
    expect(await second.stop()).toBe(0)
  })

  test('after kill -9 of svc, the restarted sandbox still has the chain its ledger speaks of', async () => {
    const first = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, { ephemeral: false })
    running.push(first)
    const before = await demo(first)
    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('exit', resolve))

    const again = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, { ephemeral: false })
    running.push(again)
    const after = await demo(again)
    expect(after.wallet.address).toBe(before.wallet.address)
    expect(after.settlements).toHaveLength(before.settlements.length + 1)
    expect(after.settlements.filter((s: { old_chain: boolean }) => s.old_chain)).toEqual([])
    expect(BigInt(after.balances.usdc_base)).toBe(BigInt(before.balances.usdc_base) - 10_000n)
  })
})
