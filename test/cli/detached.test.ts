import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { isProcessRunning } from '../../core/os-process.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { holdPort } from '../helpers/processes.js'
import { createCli, svcBin } from './harness.js'
import { readyLineFields, readyLineModeFields, readyLineSeedFields } from '../../cli/ready-line.js'
import { docBlock } from '../docs/blocks.js'
import { jsonShape } from '../docs/reference-table.js'

// `svc up --detach`, `svc status`, `svc down`: real processes, each run of the CLI a child process as a CI job runs it.

const cli = createCli()
/** Pids a test started (svc and Anvil): whatever still runs at the end is killed. */
const started: number[] = []
afterAll(() => {
  for (const pid of started) if (isProcessRunning(pid)) process.kill(pid, 'SIGKILL')
})

/** The keys docs/reference/ready-line.md says a mode adds to the ready line (with `--seed`, `seed` too). */
const modeKeys = (mode: string) =>
  readyLineModeFields
    .filter(([key, where]) => where.includes(mode) || key === 'seed')
    .map(([key]) => key)
    .sort()

const anvilPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'anvil.pid'), 'utf8').trim().split(/\s+/)[0])

async function up(...args: string[]) {
  const result = await cli.spawn(['up', '--detach', '--ephemeral', '--port', '0', ...args])
  expect(result.code, result.stderr).toBe(0)
  const ready = JSON.parse(result.stdout)
  started.push(ready.pid, anvilPid(ready.data_dir))
  return ready
}

describe('a detached sandbox', () => {
  test('start, status (--json, --env, --dotenv), a second one by name and by data dir, down, down again', async () => {
    const ready = await up('--seed', 'demo')
    expect(ready).toMatchObject({ name: 'default', seed: { email: 'demo@svc.test' } })
    // The keys docs/reference/ready-line.md lists for this mode, in the line's order, the seed's as well.
    const fields = readyLineFields.map(([key]) => key)
    expect(Object.keys(ready)).toEqual([...fields, 'seed', 'name', 'pid', 'log', 'buyer'])
    expect(modeKeys('`svc up --detach`')).toEqual(['seed', 'name', 'pid', 'log', 'buyer'].sort())
    const seedFields = readyLineSeedFields.map(([key]) => key)
    expect(Object.keys(ready.seed)).toEqual(seedFields.filter((key) => /^seed\.\w+$/.test(key)).map((k) => k.slice(5)))
    expect(Object.keys(ready.seed.keys[0])).toEqual(['name', 'environment', 'key'])
    for (const key of seedFields.filter((key) => key.startsWith('seed.apis[].')))
      expect(ready.seed.apis[0]).toHaveProperty(key.slice('seed.apis[].'.length))
    // Its sample on that page: the same keys, in the same order, with values of the same types.
    expect(jsonShape(JSON.parse(docBlock('ready line, detached').code))).toEqual(jsonShape(ready))
    expect(ready.buyer.private_key).toMatch(/^0x[0-9a-f]{64}$/)
    expect(isProcessRunning(ready.pid)).toBe(true)
    expect(ready.log).toBe(join(cli.configDir, 'sandboxes', 'default.log'))

    const status = await cli.spawn(['status', '--json'])
    expect(status.code, status.stderr).toBe(0)
    const statusLine = JSON.parse(status.stdout)
    expect(statusLine).toMatchObject({ name: 'default', status: 'running', pid: ready.pid })
    expect(Object.keys(statusLine)).toEqual(['name', 'status', 'pid', 'log', ...fields, 'seed', 'buyer', 'env'])
    expect(modeKeys('`svc status --json`')).toEqual(['name', 'status', 'pid', 'log', 'seed', 'buyer', 'env'].sort())

    // Health for wait strategies, as on `svc serve`: on the bare IP and the control hosts, never on a gateway host.
    const health = async (host: string, path: string) => {
      const answer = await localFetch(`http://${host}:${ready.gateway_port}${path}`)
      return { status: answer.status, body: await answer.json() }
    }
    for (const host of ['127.0.0.1', 'api.localhost', 'sandbox.localhost']) {
      expect(await health(host, '/healthz')).toEqual({ status: 200, body: { status: 'live' } })
      expect(await health(host, '/readyz')).toEqual({
        status: 200,
        body: { status: 'ready', database: 'ok', chain: 'ok' },
      })
    }
    expect((await health('weather.dev.localhost', '/readyz')).status).toBe(404)

    // The `export` lines, evaluated by a shell, reach the sandbox: the buyer is funded on its chain.
    const env = await cli.spawn(['status', '--env'])
    expect(env.code).toBe(0)
    const script = `eval "$(node ${svcBin} status --env)" && node ${svcBin} pay "$SVC_API_WEATHER_URL/weather/paris"`
    const paid = spawnSync('bash', ['-c', script], { env: cli.env, encoding: 'utf8' })
    expect(paid.status, paid.stderr).toBe(0)
    expect(paid.stdout).toMatch(/^HTTP 200/)
    expect(paid.stdout).toMatch(/paid: settled charged 0\.01 USDC/)
    const dotenv = await cli.spawn(['status', '--dotenv'])
    expect(dotenv.stdout).toContain(`SVC_RPC_URL=${ready.rpc_url}\n`)
    expect(dotenv.stdout).toContain(`EVM_PRIVATE_KEY=${ready.buyer.private_key}\n`)

    // The same name again: refused while it runs.
    const again = await cli.spawn(['up', '--detach', '--ephemeral', '--port', '0'])
    expect(again.code).toBe(2)
    expect(again.stderr).toMatch(/^svc: a sandbox named "default" runs already \(pid \d+/)

    // A second one beside it, found by name and by data dir.
    const second = await up('--name', 'second')
    expect(second.rpc_url).not.toBe(ready.rpc_url)
    const byName = JSON.parse((await cli.spawn(['status', '--json', '--name', 'second'])).stdout)
    const byDir = JSON.parse((await cli.spawn(['status', '--json', '--data-dir', second.data_dir])).stdout)
    expect(byName.pid).toBe(second.pid)
    expect(byDir.pid).toBe(second.pid)

    const anvil = anvilPid(ready.data_dir)
    const down = await cli.spawn(['down'])
    expect(down).toMatchObject({ code: 0, stdout: `stopped default (pid ${ready.pid})\n` })
    // Down waits: svc and its Anvil are gone when it returns, its ephemeral data dir removed.
    expect(isProcessRunning(ready.pid)).toBe(false)
    expect(isProcessRunning(anvil)).toBe(false)
    expect(existsSync(ready.data_dir)).toBe(false)
    expect(isProcessRunning(second.pid)).toBe(true)

    expect(await cli.spawn(['down'])).toMatchObject({ code: 0, stdout: 'nothing was running\n' })
    const none = await cli.spawn(['status'])
    expect(none.code).toBe(1)
    expect(none.stderr).toBe('svc: the sandbox "default" is not running: `svc up --detach` starts one\n')
    expect(await cli.spawn(['down', '--name', 'second'])).toMatchObject({ code: 0 })
    expect(isProcessRunning(second.pid)).toBe(false)
  })

  test('a sandbox that died: status reports it dead and removes its record', async () => {
    const ready = await up('--name', 'doomed')
    const anvil = anvilPid(ready.data_dir)
    process.kill(ready.pid, 'SIGKILL')
    await expect.poll(() => isProcessRunning(ready.pid), { timeout: 5_000 }).toBe(false)
    const dead = await cli.spawn(['status', '--name', 'doomed'])
    expect(dead.code).toBe(1)
    expect(dead.stderr).toMatch(
      /^svc: the sandbox "doomed" is dead \(pid \d+ exited\): its record is removed; its log: /,
    )
    expect(existsSync(join(cli.configDir, 'sandboxes', 'doomed.json'))).toBe(false)
    expect((await cli.spawn(['status', '--name', 'doomed'])).stderr).toMatch(/is not running/)
    // Anvil's own watchdog stops it once svc is gone.
    await expect.poll(() => isProcessRunning(anvil), { timeout: 5_000 }).toBe(false)
  })

  test('svc failing to start: exit 2 with its reason, one line, nothing left running', async () => {
    const { port, server } = await holdPort()
    try {
      const result = await cli.spawn(['up', '--detach', '--ephemeral', '--port', String(port)])
      expect(result.code).toBe(2)
      expect(result.stdout).toBe('')
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stderr).toMatch(new RegExp(`^svc: svc did not start: .*${port}.* \\(log: .*default\\.log\\)`))
      expect(existsSync(join(cli.configDir, 'sandboxes', 'default.json'))).toBe(false)
    } finally {
      server.close()
    }
  })

  test("a seed file with problems: exit 2 naming each of them, on svc's one line", async () => {
    const seed = join(cli.configDir, 'bad-seed.yaml')
    writeFileSync(seed, 'account:\n  email: x\n')
    const result = await cli.spawn(['up', '--detach', '--ephemeral', '--port', '0', '--seed', seed])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `svc: svc did not start: seed file ${seed} has 2 problems; nothing was started: ${seed}:2 account.email: not an email address; ${seed}:2 account.password: missing (log: ${join(cli.configDir, 'sandboxes', 'default.log')})\n`,
    )
  })

  test('a bad --name is a usage error', async () => {
    const result = await cli.spawn(['status', '--name', '../x'])
    expect(result).toMatchObject({ code: 2 })
    expect(result.stderr).toMatch(/^svc: --name must be letters/)
  })

  test('svc up --detach (started before the CLI loads) says what the CLI says: a bad --name, --json errors', async () => {
    const bad = await cli.spawn(['up', '--detach', '--ephemeral', '--name', '../x'])
    expect(bad).toMatchObject({ code: 2, stdout: '' })
    expect(bad.stderr).toBe('svc: --name must be letters, digits, ".", "_" or "-" (at most 64), got "../x"\n')
    const json = await cli.spawn(['up', '--detach', '--json', '--name=../x'])
    expect(json).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(json.stderr)).toEqual({
      error: '--name must be letters, digits, ".", "_" or "-" (at most 64), got "../x"',
    })
    expect(existsSync(join(cli.configDir, 'sandboxes', '..', 'x.json'))).toBe(false)
  })
})
