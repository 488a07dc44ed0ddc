import { once } from 'node:events'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startTestServer, type TestServer } from '../helpers/control.js'
import { createCli } from './harness.js'

let t: TestServer
let jwt: string
beforeAll(async () => {
  t = await startTestServer()
  ;({ jwt } = await t.signup())
})
afterAll(async () => {
  await t?.stop()
})

describe('exit codes: 0 success, 1 API error, 2 usage error; errors are one line `svc: …` on stderr', () => {
  test('an API error is exit code 1 with the server message (the real binary)', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    expect(await cli.spawn(['apis', 'get', 'nope'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: api not found: no API of this account in production has the id or slug "nope"\n',
    })
  })

  test('missing arguments and unknown options are exit code 2 (the real binary)', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    const missing = await cli.spawn(['endpoints', 'add'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/^svc: [^\n]+\n$/)
    const unknown = await cli.spawn(['apis', 'list', '--frobnicate'])
    expect(unknown).toMatchObject({ code: 2, stderr: "svc: unknown option '--frobnicate'\n" })
  })

  test('a mistyped option or command names the one meant, on the same line (the real binary)', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    // Before: "svc: unknown option '--prise'", commander's suggestion cut off with its second line.
    expect(await cli.spawn(['endpoints', 'add', 'api_x', '--path', '/a', '--prise', '0.01'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: unknown option '--prise' (did you mean `--price`?)\n",
    })
    expect(await cli.spawn(['endpont', 'list'])).toMatchObject({
      code: 2,
      stderr: "svc: unknown command 'endpont' (did you mean `endpoints`?)\n",
    })
    // Before: "svc: too many arguments for 'list'. Expected 0 arguments but got 2." (the default subcommand took them).
    expect(await cli.spawn(['payments', 'cancel', 'pay_1'])).toEqual({
      code: 2,
      stdout: '',
      stderr: "svc: unknown command 'cancel' for 'svc payments' (one of list, show, capture, void, refund, reclaim)\n",
    })
    expect(await cli.spawn(['time', 'rewind'])).toMatchObject({
      code: 2,
      stderr: "svc: unknown command 'rewind' for 'svc time' (one of show, advance, reset)\n",
    })
    expect(await cli.spawn(['endpoints', 'add', 'api_x', '--path', '/a', '--prise', '0.01', '--json'])).toMatchObject({
      code: 2,
      stderr: `${JSON.stringify({ error: "unknown option '--prise' (did you mean `--price`?)" })}\n`,
    })
  })

  test('key commands with only an API key are a usage error, exit code 2, saying a JWT is needed (the real binary)', async () => {
    const key = await t.createKey(jwt, 'production', ['apis:read'])
    const cli = createCli({ SVC_API_KEY: key, SVC_BASE_URL: t.server.controlUrl })
    expect(await cli.spawn(['keys', 'list'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: `svc keys list` needs a JWT: run `svc login` or set SVC_JWT (API keys are not accepted here)\n',
    })
    // The key itself works for what it may do.
    expect(await cli.run(['apis', 'list'])).toMatchObject({
      code: 0,
      stdout: "no APIs in production; the Sandbox's need a svc_sandbox_ key or `svc login --sandbox`\n",
    })
  })

  test('a bad --price is a usage error before any request', async () => {
    const cli = createCli({ SVC_BASE_URL: 'http://api.localhost:9', SVC_JWT: jwt })
    expect(await cli.run(['endpoints', 'add', 'api_x', '--path', '/a', '--price', 'abc'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'svc: --price must be a decimal amount like 0.01, got "abc"\n',
    })
    expect((await cli.run(['endpoints', 'add', 'api_x', '--path', '/a', '--price', '0.0000001'])).stderr).toBe(
      'svc: --price has more than 6 decimals: "0.0000001"\n',
    )
    expect((await cli.run(['endpoints', 'add', 'api_x', '--path', '/a', '--price', '1', '--amount', '5'])).code).toBe(2)
    expect((await cli.run(['endpoints', 'add', 'api_x', '--path', '/a'])).stderr).toMatch(/^svc: a price is needed/)
  })

  test('outside the Sandbox, --asset and --network are required', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    const result = await cli.run(['endpoints', 'add', 'api_x', '--path', '/a', '--price', '0.01'])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^svc: --asset and --network are required outside the Sandbox/)
  })

  test('no credentials at all is a usage error; a server that is not there is an API error', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl })
    expect(await cli.run(['apis', 'list'])).toMatchObject({
      code: 2,
      stderr: 'svc: not logged in: run `svc login` (or `svc signup`), or set SVC_API_KEY or SVC_JWT\n',
    })

    const closed = createServer().listen(0)
    await once(closed, 'listening')
    const port = (closed.address() as AddressInfo).port
    closed.close()
    const away = createCli({ SVC_BASE_URL: `http://api.localhost:${port}`, SVC_JWT: jwt })
    expect(await away.run(['apis', 'list'])).toMatchObject({
      code: 1,
      stderr: `svc: cannot reach http://api.localhost:${port} (ECONNREFUSED): is svc up running?\n`,
    })
  })

  test('a refused write is exit code 1 with the reason', async () => {
    const unverified = await t.signup({ verified: false })
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: unverified.jwt })
    const result = await cli.run([
      'apis',
      'create',
      '--name',
      'A',
      '--slug',
      'a-slug',
      '--upstream',
      'http://127.0.0.1:9',
      '--pay-to',
      '0x000000000000000000000000000000000000bEEF',
    ])
    expect(result).toMatchObject({ code: 1, stderr: 'svc: email verification required\n' })
  })

  test('a wrong password or an unknown email: exit code 1, saying the email or password is wrong (not which)', async () => {
    const { email } = await t.signup()
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl })
    // It names the svc it asked (issue 37 item 6: a login typed against the wrong sandbox says which).
    const asked = `(asked ${t.server.controlUrl})`
    const expected = { code: 1, stdout: '', stderr: `svc: unauthorized: the email or password is wrong ${asked}\n` }
    expect(await cli.run(['login', '--email', email, '--password', 'not the password'])).toEqual(expected)
    expect(
      await cli.run(['login', '--email', `nobody-${Date.now()}@example.test`, '--password', 'not the password']),
    ).toEqual(expected)
    expect(await cli.run(['login', '--email', email, '--password', 'not the password', '--json'])).toEqual({
      code: 1,
      stdout: '',
      stderr: `${JSON.stringify({ error: `unauthorized: the email or password is wrong ${asked}` })}\n`,
    })
  })

  test('a config file that is not a session is a usage error naming the file', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl })
    mkdirSync(cli.configDir, { recursive: true })
    writeFileSync(join(cli.configDir, 'config.json'), '{"jwt": 1}')
    const result = await cli.run(['apis', 'list'])
    expect(result.code).toBe(2)
    expect(result.stderr).toBe(
      `svc: ${join(cli.configDir, 'config.json')} is not an svc session: fix it or run \`svc logout\`\n`,
    )
  })

  test('--help is exit code 0 on every level', async () => {
    const cli = createCli()
    for (const args of [['--help'], ['endpoints', '--help'], ['endpoints', 'add', '--help'], ['help', 'settlements']]) {
      const result = await cli.run(args)
      expect(result.code, args.join(' ')).toBe(0)
      expect(result.stdout).toMatch(/^Usage: svc/)
    }
    expect((await cli.run(['endpoints', 'add', '--help'])).stdout).toContain('--price <usdc>')
  })
})

describe('--json errors: one JSON document {"error": …} on stderr, stdout untouched, the same exit codes', () => {
  test('an API error is exit code 1 (the real binary)', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    expect(await cli.spawn(['apis', 'get', 'nope', '--json'])).toEqual({
      code: 1,
      stdout: '',
      stderr: '{"error":"api not found: no API of this account in production has the id or slug \\"nope\\""}\n',
    })
  })

  test("usage errors are exit code 2: ours, and the argument parser's (the real binary)", async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    expect(await cli.spawn(['endpoints', 'add', 'api_x', '--path', '/a', '--price', 'abc', '--json'])).toEqual({
      code: 2,
      stdout: '',
      stderr: '{"error":"--price must be a decimal amount like 0.01, got \\"abc\\""}\n',
    })
    expect(await cli.spawn(['apis', 'list', '--json', '--frobnicate'])).toEqual({
      code: 2,
      stdout: '',
      stderr: '{"error":"unknown option \'--frobnicate\'"}\n',
    })
    const missing = await cli.spawn(['endpoints', 'add', '--json'])
    expect(missing).toMatchObject({ code: 2, stdout: '' })
    expect(JSON.parse(missing.stderr)).toEqual({ error: "required option '--path <pattern>' not specified" })
  })

  test('a missing credential and an unreachable server', async () => {
    expect(await createCli({ SVC_BASE_URL: t.server.controlUrl }).run(['apis', 'list', '--json'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `${JSON.stringify({ error: 'not logged in: run `svc login` (or `svc signup`), or set SVC_API_KEY or SVC_JWT' })}\n`,
    })
    const result = await createCli({ SVC_BASE_URL: 'http://api.localhost:9', SVC_JWT: jwt }).run(['whoami', '--json'])
    expect(result).toMatchObject({ code: 1, stdout: '' })
    expect(JSON.parse(result.stderr)).toEqual({
      error: expect.stringMatching(/^cannot reach http:\/\/api\.localhost:9/),
    })
  })

  test('without --json, errors stay `svc: …` lines; a --json after `--` is an argument, not the flag', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    expect(await cli.run(['apis', 'get', 'nope'])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'svc: api not found: no API of this account in production has the id or slug "nope"\n',
    })
    expect(await cli.run(['apis', 'get', '--', '--json'])).toMatchObject({
      code: 1,
      stderr: 'svc: api not found: no API of this account in production has the id or slug "--json"\n',
    })
  })
})

describe('human output', () => {
  test('is plain when NO_COLOR is set or stdout is not a terminal; --json is one JSON document', async () => {
    const cli = createCli({ SVC_BASE_URL: t.server.controlUrl, SVC_JWT: jwt })
    await cli.ok([
      'apis',
      'create',
      '--name',
      'Colors',
      '--slug',
      `colors-${Date.now()}`,
      '--upstream',
      'http://127.0.0.1:9',
      '--pay-to',
      '0x000000000000000000000000000000000000bEEF',
    ])
    const colored = await cli.run(['apis', 'list'], {}, { tty: true })
    expect(colored.stdout).toContain('\u001b[1mID')
    const noColor = await cli.run(['apis', 'list'], { NO_COLOR: '1' }, { tty: true })
    expect(noColor.stdout).not.toContain('\u001b')
    expect(noColor.stdout).toMatch(/^ID\s+SLUG\s+NAME\s+ENV\s+GATEWAY$/m)
    expect((await cli.run(['apis', 'list'])).stdout).not.toContain('\u001b')
    // --json stays JSON on a terminal.
    const json = await cli.run(['apis', 'list', '--json'], {}, { tty: true })
    expect(JSON.parse(json.stdout).apis).toHaveLength(1)
  })
})

describe('svc hosts', () => {
  test('prints the lines; --file writes them between markers, idempotently, keeping the rest (the real binary)', async () => {
    const cli = createCli()
    const printed = await cli.ok(['hosts', '--api', 'weather'])
    expect(printed).toBe(
      '# svc begin\n127.0.0.1 api.localhost\n127.0.0.1 sandbox.localhost\n127.0.0.1 weather.dev.localhost\n# svc end\n',
    )

    const file = join(cli.configDir, 'hosts')
    writeFileSync(file, '127.0.0.1 localhost\n::1 localhost\n')
    const first = await cli.spawn(['hosts', '--file', file, '--api', 'weather'])
    expect(first).toMatchObject({
      code: 0,
      stdout: `wrote api.localhost, sandbox.localhost, weather.dev.localhost to ${file}\n`,
    })
    const written = readFileSync(file, 'utf8')
    expect(written).toBe(`127.0.0.1 localhost\n::1 localhost\n${printed}`)

    const second = await cli.spawn(['hosts', '--file', file, '--api', 'weather'])
    expect(second.stdout).toBe(`${file} already has api.localhost, sandbox.localhost, weather.dev.localhost\n`)
    expect(readFileSync(file, 'utf8')).toBe(written)

    // Another slug joins the block; the earlier one stays; nothing is duplicated.
    expect(await cli.json(['hosts', '--file', file, '--api', 'news'])).toMatchObject({ changed: true })
    const lines = readFileSync(file, 'utf8').split('\n')
    expect(lines.filter((line) => line === '# svc begin')).toHaveLength(1)
    expect(lines).toEqual(
      expect.arrayContaining([
        '127.0.0.1 news.dev.localhost',
        '127.0.0.1 weather.dev.localhost',
        '127.0.0.1 localhost',
      ]),
    )
    expect(lines.filter((line) => line === '127.0.0.1 api.localhost')).toHaveLength(1)
  })

  test('a bad slug is a usage error', async () => {
    expect(await createCli().run(['hosts', '--api', 'Not A Slug'])).toMatchObject({
      code: 2,
      stderr: 'svc: --api: "Not A Slug" is not a slug (a lower-case DNS label)\n',
    })
  })
})
