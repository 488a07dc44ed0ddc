/**
 * A Python 3 buyer (standard library only, no /etc/hosts entry for `*.localhost`) pays a seeded endpoint of `svc up`
 * through its direct URL (`seed.apis[].direct_url`: http://127.0.0.1:PORT/gateway/weather.dev.localhost), run from a
 * fresh temporary directory: urllib gets the 402, x402's own client signs its payment with the Sandbox wallet's key svc
 * gives the seller (test/fixtures/sign-payment.mjs), and urllib sends the paid request (test/fixtures/pay_direct.py).
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url))
const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
/** Debian's python3 when there, else the one on PATH. */
const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'
const hasPython = spawnSync(python, ['--version']).status === 0

const dir = mkdtempSync(join(tmpdir(), 'svc-python-'))
let svc: SvcProcess | undefined
afterAll(async () => {
  await svc?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** The environment without proxies (urllib would send 127.0.0.1 through one). */
function withoutProxies(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !/^(https?|all|no)_proxy$/i.test(name)))
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(command, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe.runIf(hasPython)('a Python urllib client', () => {
  test('pays a seeded endpoint through the direct URL with no name resolution', async () => {
    svc = await startSvcProcess(['--seed', seedFile], process.env, { cwd: dir })
    const readyFile = join(dir, 'ready.json')
    writeFileSync(readyFile, JSON.stringify(svc.ready))
    const api = svc.ready.seed.apis[0]
    expect(api.direct_url).toBe(`http://127.0.0.1:${svc.ready.gateway_port}/gateway/weather.dev.localhost`)

    const result = await run(python, [fixture('pay_direct.py')], {
      ...withoutProxies(process.env),
      SVC_READY_FILE: readyFile,
      SIGNER: `${process.execPath} ${fixture('sign-payment.mjs')}`,
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const seen = JSON.parse(result.stdout)
    expect(seen).toMatchObject({
      unpaid_status: 402,
      resource_url: `${api.direct_url}/weather/lisbon`,
      paid_status: 200,
      answer: { city: 'lisbon', source: 'svc demo upstream' },
      settlement: { success: true, payer: seen.buyer },
    })
    // This machine resolves no `*.localhost` name for glibc (no /etc/hosts entry): then neither did Python.
    if (spawnSync('getent', ['hosts', 'weather.dev.localhost']).status !== 0)
      expect(seen.gateway_host_resolves).toBe(false)

    // The payment is on the chain.
    const receipt = await fetch(svc.ready.rpc_url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'eth_getTransactionReceipt',
        params: [seen.settlement.transaction],
      }),
    })
    expect(((await receipt.json()) as { result: { status: string } }).result.status).toBe('0x1')
  }, 120_000)
})
