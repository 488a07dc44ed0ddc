/**
 * Issue 37, item 6: the CLI keeps to the sandbox its login was made on. Two `svc up` on one machine (one
 * $SVC_CONFIG_DIR): `svc login` on the first, then a second `svc up` records itself in running.json. The saved
 * session is never sent to the second (it was answered `invalid token` before, and the README's export one-liner set
 * an empty key silently); the CLI says which sandbox the login is for and which it asked. `svc sandbox-wallet get
 * --key` prints the key alone or fails loudly. An auth error names the URL it asked.
 */
import { execFile } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { configPath } from '../../cli/config.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'
import { createCli, svcBin, type Cli, type CliResult } from './harness.js'

const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'svc-login-target-'))
const running: SvcProcess[] = []
let cli: Cli
let first: SvcProcess

/** `bash -c script` with the CLI's environment and `svc` as a function running the real binary. */
function bash(script: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      'bash',
      ['-c', `svc() { "${process.execPath}" "${svcBin}" "$@"; }\n${script}`],
      { env: cli.env, encoding: 'utf8' },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    )
  })
}

const login = ['login', '--sandbox', '--email', 'demo@svc.test', '--password', 'demo-password-402']

beforeAll(async () => {
  cli = createCli()
  first = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], cli.env, { ephemeral: false })
  running.push(first)
  const logged = await cli.spawn(login)
  expect(logged.code, logged.stderr).toBe(0)
})
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a saved login belongs to the svc it was made on', () => {
  test('svc sandbox-wallet get --key without a login: nothing on stdout, one line on stderr, a failing exit code', async () => {
    const nobody = createCli()
    expect(await nobody.run(['sandbox-wallet', 'get', '--key'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'svc: `svc sandbox-wallet get` needs a JWT: run `svc login` or set SVC_JWT (API keys are not accepted here)\n',
    })
    expect((await nobody.run(['sandbox-wallet', 'get', '--key', '--json'])).code).toBe(2)
  })

  test('svc sandbox-wallet get --key prints the key alone; --field prints one field', async () => {
    const key = await cli.spawn(['sandbox-wallet', 'get', '--key'])
    expect(key.stderr).toBe('')
    expect(key.code).toBe(0)
    expect(key.stdout).toMatch(/^0x[0-9a-f]{64}\n$/)
    const wallet = await cli.json(['sandbox-wallet', 'get'])
    expect(key.stdout.trim()).toBe(wallet.private_key)
    expect(await cli.ok(['sandbox-wallet', 'get', '--field', 'private_key'])).toBe(`${wallet.private_key}\n`)
    expect(await cli.ok(['sandbox-wallet', 'get', '--field', 'address'])).toBe(`${wallet.address}\n`)
    const unknown = await cli.run(['sandbox-wallet', 'get', '--field', 'secret'])
    expect(unknown.code).toBe(2)
    expect(unknown.stdout).toBe('')
    expect(unknown.stderr).toMatch(/^svc: --field must be one of address, private_key, .*\n$/)
    // The session names the sandbox it was made on.
    const saved = JSON.parse(readFileSync(configPath(cli.env), 'utf8'))
    expect(saved).toMatchObject({
      base_url: first.ready.sandbox_control_url,
      instance_id: expect.stringMatching(/^[0-9a-f]{12}$/),
    })
  })

  test('a second svc up on the machine: the session is not sent to it, the CLI says so in one line, exit 1', async () => {
    const second = await startSvcProcess([], cli.env)
    running.push(second)
    const refused = await cli.spawn(['sandbox-wallet', 'get', '--json'])
    expect(refused.code).toBe(1)
    expect(refused.stdout).toBe('')
    const saved = JSON.parse(readFileSync(configPath(cli.env), 'utf8'))
    const message = `the saved login is for ${first.ready.sandbox_control_url} (sandbox ${saved.instance_id}), not ${second.ready.sandbox_control_url} (sandbox `
    expect(refused.stderr).toContain(message)
    expect(refused.stderr).toMatch(/: log in there \(`svc login`\), or pass --base-url http:\/\/\S+\n$/)
    expect(refused.stderr.split('\n')).toHaveLength(2)

    // The key: nothing on stdout, one line on stderr, a failing status that stops a `set -e` script.
    const key = await cli.spawn(['sandbox-wallet', 'get', '--key'])
    expect(key).toMatchObject({ code: 1, stdout: '' })
    expect(key.stderr).toContain(message)
    const script = await bash('set -e\nKEY=$(svc sandbox-wallet get --key)\necho "reached with [$KEY]"')
    expect(script.code).toBe(1)
    expect(script.stdout).toBe('')
    expect(script.stderr).toContain(message)

    // The first is still the login's: --base-url picks it.
    const whoami = await cli.spawn(['whoami', '--json', '--base-url', first.ready.sandbox_control_url])
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(JSON.parse(whoami.stdout)).toMatchObject({ user: { email: 'demo@svc.test' } })
  })

  test('an auth error names the URL it asked', async () => {
    const second = running[1]!
    const result = await cli.spawn(['whoami'], { SVC_JWT: 'not.a.jwt', SVC_BASE_URL: second.ready.sandbox_control_url })
    expect(result.code).toBe(1)
    expect(result.stderr).toBe(`svc: ${second.ready.sandbox_control_url} refused SVC_JWT: invalid token\n`)
  })

  test("a server that is not the login's never sees the session: no request carries it", async () => {
    const seen: IncomingHttpHeaders[] = []
    const other: Server = createServer((req, res) => {
      seen.push(req.headers)
      res.setHeader('content-type', 'application/json')
      if (req.url === '/config/platform') return void res.end(JSON.stringify({ instance_id: '0123456789ab' }))
      res.statusCode = 401
      res.end(JSON.stringify({ error: 'invalid token' }))
    }).listen(0, '127.0.0.1')
    await once(other, 'listening')
    try {
      const url = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
      for (const args of [['whoami'], ['apis', 'list'], ['sandbox-wallet', 'get', '--key'], ['balances']]) {
        const result = await cli.spawn([...args, '--base-url', url])
        expect(result.code, args.join(' ')).toBe(1)
        expect(result.stderr).toContain(`, not ${url} (sandbox 0123456789ab): `)
      }
      expect(seen.length).toBeGreaterThan(0)
      expect(seen.filter((headers) => headers.authorization !== undefined)).toEqual([])
    } finally {
      other.close()
    }
  })

  test("once the second stops, commands go to the login's svc again; a restart on its data dir keeps the login", async () => {
    await running[1]!.stop()
    expect((await cli.spawn(['whoami'])).code).toBe(0)

    // The same sandbox (its data dir) on another port: the same sandbox, the login still works.
    const port = first.ready.gateway_port
    expect(await first.stop()).toBe(0)
    const again = await startSvcProcess(['--data-dir', dataDir], cli.env, { ephemeral: false })
    running.push(again)
    expect(again.ready.gateway_port).not.toBe(port)
    const whoami = await cli.spawn(['whoami', '--json'])
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(JSON.parse(whoami.stdout)).toMatchObject({ user: { email: 'demo@svc.test' } })
    await again.stop()

    // Another sandbox on the login's very port (a port reused): refused all the same.
    const reused = await startSvcProcess(['--port', String(port)], cli.env)
    running.push(reused)
    expect(reused.ready.gateway_port).toBe(port)
    const refused = await cli.spawn(['whoami'])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(
      new RegExp(`^svc: the saved login is for ${first.ready.sandbox_control_url} \\(sandbox [0-9a-f]{12}\\), not `),
    )
  })
})
