/**
 * The CLI against `svc serve` (a real child process) whose whole-Sandbox routes and outbox take the admin token: `svc
 * time`, `svc fault`, `svc snapshot(s)`, `svc outbox` and `svc chain restart` present it from SVC_ADMIN_TOKEN or
 * --admin-token-file, and without it say in one line how to give it (exit 1). And the discovery documents behind a
 * TLS proxy name the public origin (--public-scheme https), not `http://{Host}`.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { createCli } from './harness.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-serve-admin-'))
const adminToken = randomBytes(32).toString('hex')
const tokenFile = join(dir, 'admin.token')
writeFileSync(tokenFile, `${adminToken}\n`)
const cli = createCli()
let svc: ServeProcess
/** svc serve's control plane, as the CLI's --base-url (svc up's hosts: no --platform-domain). */
let baseUrl: string

beforeAll(async () => {
  svc = await startServeProcess([
    ...['--data-dir', join(dir, 'data'), '--admin-token-file', tokenFile],
    ...['--public-scheme', 'https', '--trust-proxy', '127.0.0.2', '--auto-verify'],
  ])
  baseUrl = `http://api.localhost:${svc.ready.port}`
}, 60_000)
afterAll(async () => {
  await svc?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const svcCli = (args: string[], env: NodeJS.ProcessEnv = {}) => cli.run(['--base-url', baseUrl, ...args], env)

describe('the CLI and svc serve’s admin token', () => {
  test('without it: one line naming SVC_ADMIN_TOKEN and --admin-token-file, exit 1', async () => {
    for (const args of [
      ['time'],
      ['time', 'advance', '60'],
      ['fault', 'list'],
      ['fault', 'add', 'upstream', '--drop'],
      ['snapshot'],
      ['snapshots'],
      ['chain', 'restart'],
      ['outbox', '--all'],
    ]) {
      const result = await svcCli(args)
      expect([args, result.code]).toEqual([args, 1])
      expect(result.stderr.trim().split('\n')).toHaveLength(1)
      expect(result.stderr).toMatch(
        /^svc: `svc [a-z ]+`: this svc asks for its admin token: set SVC_ADMIN_TOKEN or pass --admin-token-file FILE$/m,
      )
    }
  })

  test('a wrong one is named as refused', async () => {
    const result = await svcCli(['fault', 'list'], { SVC_ADMIN_TOKEN: randomBytes(32).toString('hex') })
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('`svc fault list`: the server refused the admin token (invalid token)')
  })

  test('with SVC_ADMIN_TOKEN or --admin-token-file: time, faults, snapshots and the outbox answer', async () => {
    const env = { SVC_ADMIN_TOKEN: adminToken }
    expect((await svcCli(['time', '--json'], env)).code).toBe(0)
    const added = JSON.parse((await svcCli(['fault', 'add', 'upstream', '--drop', '--json'], env)).stdout)
    expect(added).toMatchObject({ kind: 'upstream', drop: true })
    const listed = await svcCli(['fault', 'list', '--json', '--admin-token-file', tokenFile])
    expect(JSON.parse(listed.stdout).faults.map((fault: { id: string }) => fault.id)).toEqual([added.id])
    expect(JSON.parse((await svcCli(['fault', 'clear', '--json', '--admin-token-file', tokenFile])).stdout)).toEqual({
      cleared: 1,
      sandbox_url: expect.stringMatching(/^http:\/\/sandbox\.localhost:\d+$/),
    })
    const snapshot = await svcCli(['snapshot', '--json', '--admin-token-file', tokenFile])
    expect(snapshot.code).toBe(0)
    expect(JSON.parse(snapshot.stdout).id).toMatch(/^snap_/)
    expect((await svcCli(['outbox', '--all', '--json'], env)).code).toBe(0)
  })

  test('an unreadable --admin-token-file is a usage error (exit 2)', async () => {
    const result = await svcCli(['time', '--admin-token-file', join(dir, 'missing.token')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('--admin-token-file: cannot read')
  })
})

describe('discovery behind a TLS proxy', () => {
  test('openapi.json and /.well-known/x402 name https://{host} (--public-scheme https), not http://{Host}', async () => {
    const control = `http://sandbox.localhost:${svc.ready.port}`
    const signup = await localFetch(`${control}/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'seller@example.com', password: 'a-long-password' }),
    })
    const headers = {
      'content-type': 'application/json',
      authorization: `Bearer ${((await signup.json()) as { token: string }).token}`,
      'x-svc-environment': 'development',
    }
    const api = await localFetch(`${control}/apis`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Weather',
        slug: 'weather',
        upstream_base_url: 'http://203.0.113.10',
        pay_to_mode: 'user_wallet',
        pay_to_address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      }),
    })
    const { id, gateway_url } = (await api.json()) as { id: string; gateway_url: string }
    expect(gateway_url).toBe('https://weather.dev.localhost')
    const accept = {
      scheme: 'exact',
      network: svc.ready.network,
      asset: svc.ready.usdc,
      amount: '10000',
      max_timeout_seconds: 300,
    }
    const endpoint = await localFetch(`${control}/apis/${id}/endpoints`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        method: 'GET',
        path_pattern: '/forecast',
        accepts: [accept],
        request_schema: null,
        response_schema: { type: 'object' },
      }),
    })
    expect(endpoint.status).toBe(201)
    // The proxy speaks plain http to svc's port (the Host names it); the buyer reached https://weather.dev.localhost.
    const proxy = fetchFrom('127.0.0.2')
    const openapi = await proxy(`http://weather.dev.localhost:${svc.ready.port}/openapi.json`)
    expect(((await openapi.json()) as { servers: unknown }).servers).toEqual([{ url: 'https://weather.dev.localhost' }])
    const wellKnown = await proxy(`http://weather.dev.localhost:${svc.ready.port}/.well-known/x402`)
    expect(((await wellKnown.json()) as { resources: string[] }).resources).toEqual([
      'https://weather.dev.localhost/forecast',
    ])
  })
})
