import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import { createCli, type Cli } from './harness.js'

let sandbox: TestSandbox
let cli: Cli

beforeAll(async () => {
  sandbox = await startSandbox()
  // The production base URL: the commands talk to the Sandbox control plane of the same svc.
  cli = createCli({ SVC_BASE_URL: sandbox.controlUrl })
})
afterAll(() => sandbox?.stop())

describe('svc snapshot / revert / snapshots', () => {
  test('snapshot prints an id; revert to it twice; the API made in between is gone', async () => {
    const id = (await cli.ok(['snapshot'])).trim()
    expect(id).toMatch(/^snap_\w+$/)
    await sandbox.seller.client.apis.create({
      name: 'Made later',
      slug: 'made-later',
      upstream_base_url: 'http://127.0.0.1:9',
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000bEEF',
    })
    const reverted = await cli.json(['revert', id])
    expect(reverted).toMatchObject({ id, discarded: [] })
    expect(reverted.took_ms).toBeGreaterThan(0)
    expect(await sandbox.seller.client.apis.list()).toEqual([])
    expect(await cli.ok(['revert', id])).toMatch(
      new RegExp(`^reverted ${sandbox.sandboxControlUrl} to ${id} \\(block \\d+, taken .+\\) in [\\d.]+ ms\\n$`),
    )
    expect((await cli.json(['snapshots'])).snapshots.map((s: { id: string }) => s.id)).toEqual([id])
    expect(await cli.json(['snapshot'])).toMatchObject({
      id: expect.stringMatching(/^snap_/),
      chain_block: expect.any(Number),
    })
  })

  test('snapshot names the sandbox it acted on (stderr; stdout stays the id alone), sandbox_url with --json', async () => {
    // Issue 35, item 5: it printed the id alone, where `svc time` and `svc revert` name the sandbox.
    const taken = await cli.run(['snapshot'])
    expect(taken.code).toBe(0)
    const id = taken.stdout.trim()
    expect(taken.stdout).toMatch(/^snap_\w+\n$/)
    expect(taken.stderr).toMatch(new RegExp(`^snapshot ${id} of ${sandbox.sandboxControlUrl} \\(block \\d+\\)\\n$`))
    expect(await cli.json(['snapshot'])).toMatchObject({ sandbox_url: sandbox.sandboxControlUrl })
  })

  test('an unknown id: exit 1, one line; no id: exit 2', async () => {
    expect(await cli.run(['revert', 'snap_nope'])).toEqual({ code: 1, stdout: '', stderr: 'svc: snapshot not found\n' })
    expect(await cli.run(['revert', 'snap_nope', '--json'])).toEqual({
      code: 1,
      stdout: '',
      stderr: '{"error":"snapshot not found"}\n',
    })
    expect((await cli.run(['revert'])).code).toBe(2)
  })
})

describe('svc time / time advance', () => {
  test('shows both clocks, and moves them together', async () => {
    const before = await cli.json(['time'])
    expect(before).toEqual({
      chain_time: expect.any(Number),
      chain_block: expect.any(Number),
      svc_time: expect.any(String),
      offset_seconds: 0,
      sandbox_url: sandbox.sandboxControlUrl,
    })
    const after = await cli.json(['time', 'advance', '2h'])
    expect(after.offset_seconds).toBe(7200)
    expect(after.chain_time).toBeGreaterThanOrEqual(before.chain_time + 7200)
    expect(await cli.ok(['time'])).toMatch(
      /^sandbox +http:\/\/sandbox\.localhost:\d+\nchain +\S+Z +\(block \d+\)\nsvc +\S+Z\noffset +\+7200 s\n$/,
    )
    expect((await cli.json(['time', 'advance', '90'])).offset_seconds).toBe(7290)
  })

  test('a bad duration is a usage error (exit 2)', async () => {
    expect(await cli.run(['time', 'advance', 'soon'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: SECONDS must be a whole number of seconds (or 15m, 2h, 8d), got "soon"\n',
    })
    expect((await cli.run(['time', 'advance', '0'])).code).toBe(2)
  })

  test('the commands are in svc --help', async () => {
    const help = await cli.ok(['--help'])
    for (const command of ['snapshot', 'revert', 'snapshots', 'time'])
      expect(help).toMatch(new RegExp(`\\n  ${command}\\b`))
  })
})
