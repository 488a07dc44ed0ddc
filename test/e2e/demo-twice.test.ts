/**
 * The README's demo, twice, with a restart of `svc up` on the same data dir between: the demo seller logs in, takes
 * its funded Sandbox wallet, pays the demo API with `svc pay` and lists its settlements. The chain is kept in the
 * data dir, so after the restart the wallet still holds what the first run left, the demo API's upstream (a new
 * port each run) is reachable, and the first run's settlement is still current.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { createCli } from '../cli/harness.js'

const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'svc-demo-twice-'))
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

/** One pass of the README's "Try it" against a running `svc up`; returns the wallet and its settlements. */
async function demo(svc: SvcProcess) {
  const cli = createCli({ SVC_BASE_URL: svc.ready.sandbox_control_url })
  await cli.ok(['login', '--sandbox', '--email', 'demo@svc.test', '--password', 'demo-password-402'])
  await cli.ok(['sandbox-wallet', 'get', '--wait'])
  const wallet = await cli.json(['sandbox-wallet', 'get'])
  // export SVC_EVM_PRIVATE_KEY=$(npx svc sandbox-wallet get --key)
  const key = await cli.ok(['sandbox-wallet', 'get', '--key'])
  expect(key).toBe(`${wallet.private_key}\n`)
  const paid = await cli.spawn(['pay', `http://weather.dev.localhost:${svc.ready.gateway_port}/weather/paris`], {
    SVC_EVM_PRIVATE_KEY: key.trim(),
  })
  expect(paid.code, paid.stderr).toBe(0)
  expect(paid.stdout).toContain('HTTP 200')
  const { settlements } = await cli.json(['settlements', '--sandbox'])
  const balances = await cli.json(['balances'])
  return { wallet, settlements, balances }
}

describe('the README demo', () => {
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
