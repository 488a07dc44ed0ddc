/**
 * `svc serve` without a Sandbox chain, as real child processes: flags refused before anything starts (exit 2), the
 * JWT key from a file shared by two processes on one SQLite file (one after the other: svc holds its SQLite file
 * exclusively, so two processes cannot share one at once), and the second signal that exits at once.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { fetchFrom, runServe, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-secrets-'))
const running: ServeProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dir, { recursive: true, force: true })
})

const jwtKey = randomBytes(32).toString('hex')
const walletKey = randomBytes(32).toString('base64')
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${jwtKey}\n`)
writeFileSync(walletFile, `${walletKey}\n`)
const fetchLocal = fetchFrom('127.0.0.1')

async function serve(name: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const svc = await startServeProcess(
    [
      '--sandbox-chain',
      'none',
      '--data-dir',
      join(dir, name),
      '--platform-domain',
      'pay.test',
      '--auto-verify',
      ...args,
    ],
    env,
  )
  running.push(svc)
  return svc
}

describe('svc serve: flags refused before anything starts', () => {
  test.each([
    [['--database-url', 'postgres://svc@db.internal:99999/svc'], /--database-url: not a valid postgres:\/\/ URL/],
    [['--database-url', 'mysql://db/svc'], /"mysql:" databases are not supported/],
    [['--trust-proxy', '10.0.0.0/33'], /--trust-proxy: "10.0.0.0\/33" is not an IP address or CIDR range/],
    [['--allow-upstream', 'intranet'], /--allow-upstream: "intranet" is not an IP address/],
    [['--jwt-secret-file', '/nonexistent/jwt.key'], /--jwt-secret-file: cannot read \/nonexistent\/jwt.key \(ENOENT\)/],
    [['--platform-domain', 'not a domain'], /--platform-domain: "not a domain" is not a domain name/],
    [['--sandbox-chain', 'remote'], /--sandbox-chain must be one of local, none/],
    [['--host', 'example.com'], /--host: "example.com" is not an IP address/],
    [['--rpc', 'https://mainnet.base.org'], /--rpc: "https:\/\/mainnet.base.org" is not <network>=<url>/],
    [['--rpc', 'eip155:8453=ws://node:8546'], /--rpc: the RPC of eip155:8453 must be an http\(s\) URL/],
    [['--rpc-log-blocks', '0'], /--rpc-log-blocks.*whole number of blocks above 0/],
  ])('%j → exit 2, one line', (args, message) => {
    const dataDir = join(dir, `refused-${randomBytes(4).toString('hex')}`)
    const { code, stderr, stdout } = runServe(['--sandbox-chain', 'none', '--data-dir', dataDir, ...args])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr.trim().split('\n')).toHaveLength(1)
    expect(stderr).toMatch(message)
    // Refused before anything started: no data dir, no database.
    expect(existsSync(dataDir)).toBe(false)
  })

  test('a malformed key is refused without echoing it', () => {
    const env = { ...process.env, SVC_JWT_SECRET: 'secret-value-that-is-not-a-key' }
    const { code, stderr } = runServe(['--sandbox-chain', 'none', '--data-dir', join(dir, 'bad-key')], env)
    expect(code).toBe(2)
    expect(stderr).toMatch(/SVC_JWT_SECRET: not a 32-byte key/)
    expect(stderr).not.toContain('secret-value')
  })
})

describe('svc serve: secrets from files or the environment', () => {
  test('a JWT minted by one process is accepted by the next on the same SQLite file with the same key file; another key refuses it', async () => {
    const first = await serve('first', ['--jwt-secret-file', jwtFile, '--wallet-key-file', walletFile])
    const signup = await fetchLocal(`${first.ready.control_url}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@pay.test', password: 'a-long-password' }),
    })
    expect(signup.status).toBe(201)
    const { token, user } = (await signup.json()) as { token: string; user: { id: string } }
    expect(await first.stop()).toBe(0)
    // The keys given from outside are not written to the data dir, and never printed.
    expect(existsSync(join(dir, 'first', 'jwt.secret'))).toBe(false)
    expect(existsSync(join(dir, 'first', 'wallet.key'))).toBe(false)
    expect(existsSync(join(dir, 'first', 'offer-receipt.key'))).toBe(true)
    expect(first.stderr() + JSON.stringify(first.ready)).not.toContain(jwtKey)

    const database = `file:${join(dir, 'first', 'svc.sqlite')}`
    const second = await serve('second', ['--database-url', database], {
      ...process.env,
      SVC_JWT_SECRET: jwtKey,
      SVC_WALLET_KEY: walletKey,
    })
    const me = await fetchLocal(`${second.ready.control_url}/auth/me`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(me.status).toBe(200)
    expect(((await me.json()) as { user: { id: string } }).user.id).toBe(user.id)
    expect(await second.stop()).toBe(0)

    const other = await serve('other', ['--database-url', database], {
      ...process.env,
      SVC_JWT_SECRET: randomBytes(32).toString('hex'),
    })
    const refused = await fetchLocal(`${other.ready.control_url}/auth/me`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(refused.status).toBe(401)
    // Without --admin-token-file the whole-sandbox routes and the outbox are off on a server.
    const time = await fetchLocal(`${other.ready.sandbox_control_url}/dev/time`)
    expect(time.status).toBe(403)
    expect(await time.json()).toEqual({
      error: 'time travel: off on this server (start svc serve with --admin-token-file)',
    })
    expect((await fetchLocal(`${other.ready.control_url}/dev/outbox`)).status).toBe(403)
    expect(await other.stop()).toBe(0)
  })

  test('two processes on one SQLite file at once: the second is refused, the first serves on', async () => {
    const first = await serve('holder', [])
    const database = join(dir, 'holder', 'svc.sqlite')
    const second = runServe([
      '--sandbox-chain',
      'none',
      '--data-dir',
      join(dir, 'intruder'),
      '--database-url',
      database,
    ])
    expect(second.code).toBe(1)
    expect(second.stderr.trim().split('\n').at(-1)).toBe(
      `svc: ${database} is in use by another svc: one process per SQLite file`,
    )
    expect((await fetchLocal(`http://127.0.0.1:${first.ready.port}/readyz`)).status).toBe(200)
    expect(await first.stop()).toBe(0)
  })

  test('a second SIGTERM while a request is in flight exits at once', async () => {
    const svc = await serve('twice', [])
    // A request whose body never comes: in flight until the drain's bound (30 s) unless the second signal ends it.
    const socket = connect(svc.ready.port, '127.0.0.1')
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.on('error', () => {})
    socket.write(
      'POST /auth/login HTTP/1.1\r\nHost: api.pay.test\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{',
    )
    await expect.poll(async () => (await fetchLocal(`http://127.0.0.1:${svc.ready.port}/readyz`)).status).toBe(200)
    svc.child.kill('SIGTERM')
    await expect.poll(() => svc.stderr()).toContain('draining')
    svc.child.kill('SIGTERM')
    expect(await svc.exited).toBe(1)
    expect(svc.stderr()).toContain('SIGTERM again: exiting without waiting')
    socket.destroy()
  })
})
