/**
 * The issue's "as a new user would": `svc up` with its dashboard in one terminal (tmux); in a second, the CLI signs
 * up, creates a key, an API in front of the demo upstream and a paid endpoint, and `svc pay` buys it; the dashboard
 * shows the settlement and the wallet's balance drop.
 */
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { Listening } from '../../core/http.js'
import { startDemoUpstream } from '../../fixtures/demo-upstream.js'

const repo = fileURLToPath(new URL('../..', import.meta.url))
const svcBin = join(repo, 'bin/svc.js')
const hasTmux = spawnSync('tmux', ['-V']).status === 0
const socket = `svc-e2e-${process.pid}`
const tmux = (...args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
const session = 'svc-up'
const screen = () => tmux('capture-pane', '-p', '-t', session).stdout ?? ''
/** What Ink (is-in-ci), and so svc, takes for CI: then the dashboard would draw nothing until exit. */
const ciVariables = Object.keys(process.env).filter((name) => name === 'CI' || name === 'CONTINUOUS_INTEGRATION')
const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`

let dir: string
let port: number
/** The seller's upstream: the sample API of the demo seed, on a port of its own. */
let upstream: Listening

async function eventually(what: string, check: () => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what} within ${timeoutMs} ms; the dashboard showed:\n${screen()}`)
    await delay(100)
  }
}

/** Runs the real `svc` binary as the second terminal would; resolves with its exit code and output. */
async function svc(args: string[], extraEnv: Record<string, string> = {}) {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_CONFIG_DIR: join(dir, 'config'),
    SVC_BASE_URL: `http://sandbox.localhost:${port}`,
    NO_COLOR: '1',
    ...extraEnv,
  }
  for (const name of ciVariables) delete env[name]
  const child = spawn(process.execPath, [svcBin, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c) => (stdout += c))
  child.stderr.on('data', (c) => (stderr += c))
  const [code] = await once(child, 'exit')
  if (code !== 0) throw new Error(`svc ${args.join(' ')} exited ${code}: ${stderr}`)
  return { stdout, json: () => JSON.parse(stdout) }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-e2e-'))
  const probe = createServer().listen(0, '127.0.0.1')
  await once(probe, 'listening')
  port = (probe.address() as AddressInfo).port
  probe.close()
  upstream = await startDemoUpstream()
})
afterAll(async () => {
  await upstream.close()
  tmux('kill-server')
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!hasTmux)('a new user', () => {
  test('starts svc up, sells a paid endpoint with the CLI, buys it with svc pay, and watches the dashboard', async () => {
    const exitFile = join(dir, 'exit-code')
    const command = [
      'env',
      ...ciVariables.flatMap((name) => ['-u', name]),
      `SVC_CONFIG_DIR=${quote(join(dir, 'config'))}`,
      quote(process.execPath),
      quote(svcBin),
      `up --ephemeral --port ${port}`,
      `; echo $? > ${quote(exitFile)}`,
    ].join(' ')
    expect(tmux('new-session', '-d', '-x', '120', '-y', '40', '-s', session, '-c', repo, command).stderr).toBe('')
    await eventually('no dashboard', () => /chain 845320402 .*block #\d/.test(screen()), 60_000)

    const email = `new-user-${Date.now()}@example.test`
    await svc(['signup', '--sandbox', '--email', email, '--password', 'a long password'])
    const { messages } = (await svc(['outbox', '--json'])).json()
    await svc(['verify-email', messages[0].token])
    const key = (await svc(['keys', 'create', '--name', 'ci', '--preset', 'apiManager', '--sandbox', '--json'])).json()
    expect(key.key).toMatch(/^svc_sandbox_/)
    const api = (
      await svc([
        'apis',
        'create',
        '--name',
        'Demo',
        '--slug',
        'demo',
        '--upstream',
        upstream.url,
        '--pay-to',
        '0x000000000000000000000000000000000000bEEF',
        '--sandbox',
        '--json',
      ])
    ).json()
    await svc([
      'endpoints',
      'add',
      api.id,
      '--method',
      'GET',
      '--path',
      '/weather/{city}',
      '--price',
      '0.01',
      '--sandbox',
    ])

    // The dashboard picks up the new login: the API and the funded wallet appear.
    await eventually('no API on the dashboard', () => screen().includes('/weather/{city}'), 20_000)
    const wallet = (await svc(['sandbox-wallet', 'get', '--wait', '--sandbox', '--json'])).json()
    await eventually('no funded wallet on the dashboard', () => /1,000(\.00)? USDC/.test(screen()), 20_000)

    const paid = await svc(['pay', `http://demo.dev.localhost:${port}/weather/paris`], {
      SVC_EVM_PRIVATE_KEY: wallet.private_key,
    })
    expect(paid.stdout).toContain('HTTP 200')
    expect(paid.stdout).toContain('"city":"paris"')

    await eventually('no settlement on the dashboard', () => /GET \/weather\/paris/.test(screen()), 20_000)
    await eventually('no balance drop on the dashboard', () => /999\.99 USDC/.test(screen()), 20_000)

    tmux('send-keys', '-t', session, 'q')
    await eventually('svc up did not exit', () => tmux('has-session', '-t', session).status !== 0, 30_000)
    expect(readFileSync(exitFile, 'utf8').trim()).toBe('0')
  })
})
