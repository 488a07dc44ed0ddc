import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { afterAll, describe, expect, test } from 'vitest'
import { isProcessRunning } from '../../core/os-process.js'
import { listProcessTree } from '../bench/process-tree.js'
import { holdPort } from '../helpers/processes.js'
import { createCli, svcBin } from './harness.js'

// `svc exec`: real processes, a fresh temporary directory for each test's files and the CLI's config.

const cli = createCli()
const work = mkdtempSync(join(tmpdir(), 'svc-exec-'))
/** Pids a test started: whatever still runs at the end is killed. */
const started: number[] = []
afterAll(() => {
  for (const pid of started) if (isProcessRunning(pid)) process.kill(pid, 'SIGKILL')
  rmSync(work, { recursive: true, force: true })
})

/** The first stdout line of a process. */
const firstLine = (child: ChildProcess) =>
  new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve)
    child.once('exit', (code) => reject(new Error(`exited with ${code} before a line`)))
  })
const exitOf = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    child.once('exit', (code) => resolve(code))
  })
/** svc exec's process tree once its command runs: svc itself, Anvil (and its watchdog), the command. */
function treeOf(pid: number) {
  const tree = listProcessTree(pid)
  started.push(...tree.map((p) => p.pid))
  expect(tree.some((p) => p.name === 'anvil')).toBe(true)
  return tree
}
const noneRunning = (pids: number[]) => () => pids.filter(isProcessRunning)

describe('svc exec', () => {
  test('a bash script pays a seeded endpoint with the buyer svc gives it; exec exits with its code', async () => {
    const script = join(work, 'pay.sh')
    writeFileSync(
      script,
      [
        'set -euo pipefail',
        // The names x402's examples read are there too.
        'test -n "$EVM_PRIVATE_KEY" && test "$RESOURCE_SERVER_URL" = "$SVC_API_WEATHER_DIRECT_URL"',
        // The gateway asks for a payment…
        'test "$(curl -s -o /dev/null -w "%{http_code}" "$SVC_API_WEATHER_URL/weather/paris")" = 402',
        // …and the buyer pays it.
        `node ${svcBin} pay "$SVC_API_WEATHER_URL/weather/paris"`,
        // The seeded seller's key reaches the Sandbox control plane.
        `node ${svcBin} apis list --json | grep -q '"slug": "weather"'`,
        'exit 7',
      ].join('\n'),
    )
    const result = await cli.spawn(['exec', '--', 'bash', script])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(7)
    expect(result.stdout).toMatch(/^HTTP 200 OK\npaid: settled charged 0\.01 USDC tx 0x[0-9a-f]{64}/)
    expect(result.stdout).toContain('"city":"paris"')
  })

  test('a Python 3 script (standard library only) reads the sandbox from its environment, gets the 402 at the no-DNS URL and pays with svc pay', async () => {
    const script = join(work, 'pay.py')
    writeFileSync(
      script,
      [
        'import json, os, subprocess, sys, urllib.error, urllib.request',
        'env = os.environ',
        // svc itself answers on 127.0.0.1, no name to resolve: ready, and the buyer it funded.
        'port = env["SVC_GATEWAY_PORT"]',
        'ready = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz"))',
        'assert ready["status"] == "ready", ready',
        "balances = json.load(urllib.request.urlopen(f\"{env['SVC_CHAIN_MANAGER_URL']}/balances/{env['SVC_BUYER_ADDRESS']}\"))",
        'assert int(balances["usdc_base"], 16) == 1000 * 10**6, balances',
        // Its own call to the gateway's direct URL (127.0.0.1, no *.localhost to resolve): the 402 and its offer.
        'try:',
        '    urllib.request.urlopen(env["RESOURCE_SERVER_URL"] + "/quote")',
        '    sys.exit("no 402")',
        'except urllib.error.HTTPError as refused:',
        '    assert refused.code == 402 and refused.headers["PAYMENT-REQUIRED"], refused.code',
        `paid = subprocess.run([${JSON.stringify(process.execPath)}, ${JSON.stringify(svcBin)}, "pay", "--json", env["RESOURCE_SERVER_URL"] + "/quote"], capture_output=True, text=True)`,
        'assert paid.returncode == 0, paid.stderr',
        'answer = json.loads(paid.stdout)',
        'assert answer["payment_response"]["payer"].lower() == env["SVC_BUYER_ADDRESS"].lower(), answer',
        'print(answer["status"], answer["payment_response"]["success"])',
      ].join('\n'),
    )
    const result = await cli.spawn(['exec', '--', 'python3', script])
    expect(result.stderr).toBe('')
    expect(result).toMatchObject({ code: 0, stdout: '200 True\n' })
  })

  test('bad input: no `--`, no command, a command that does not exist: exit 2, one line, nothing started', async () => {
    const cases: [string[], string][] = [
      [['exec', 'true'], 'svc: svc exec needs `--` before the command: svc exec [options] -- <command…>\n'],
      [['exec', '--'], 'svc: svc exec needs a command after `--`: svc exec [options] -- <command…>\n'],
      [['exec', '--', 'no-such-command-svc'], 'svc: command not found: no-such-command-svc\n'],
      [['exec', '--', './no/such/file'], 'svc: command not found: ./no/such/file\n'],
    ]
    for (const [args, stderr] of cases) {
      const child = spawn(process.execPath, [svcBin, ...args], { env: cli.env, stdio: ['ignore', 'pipe', 'pipe'] })
      let err = ''
      child.stderr!.on('data', (chunk) => (err += chunk))
      const code = await exitOf(child)
      expect({ code, err }).toEqual({ code: 2, err: stderr })
    }
  })

  test("--help shows exec's own usage: a free port, a temporary directory and the demo seed, not svc up's defaults", async () => {
    const { code, stdout } = await cli.run(['exec', '--help'], {
      SVC_PORT: '4555',
      SVC_DATA_DIR: join(work, 'nowhere'),
    })
    expect(code).toBe(0)
    const help = stdout.split('Global Options:')[0]!.replace(/\s+/g, ' ')
    expect(help).toContain('Usage: svc exec [options] -- <command…>')
    expect(help).toContain('--port <port> port of the control planes and the gateway; 0 picks a free one (default: 0)')
    expect(help).toContain('unless given, a temporary directory removed on exit')
    expect(help).toContain('demo unless given')
    // svc up's defaults and variables, and the flags exec sets itself, are not exec's.
    for (const absent of [
      '4020',
      '4555',
      '.svc',
      'nowhere',
      'SVC_PORT',
      'SVC_DATA_DIR',
      '--json',
      '--ephemeral',
      '--no-tui',
    ])
      expect(help, absent).not.toContain(absent)
  })

  test('svc failing to start: exit 2 with its reason, one line, the command not run', async () => {
    const { port, server } = await holdPort()
    try {
      const marker = join(work, 'ran')
      const result = await cli.spawn(['exec', '--port', String(port), '--', 'touch', marker])
      expect(result.code).toBe(2)
      expect(result.stderr).toBe(
        `svc: port ${port} on 127.0.0.1 is in use: stop what runs there, or pass --port 0 for a free port\n`,
      )
      expect(existsSync(marker)).toBe(false)
    } finally {
      server.close()
    }
  })

  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    test(`${signal} to svc exec: passed to the command, svc and Anvil stopped, exit 128 + n`, async () => {
      const child = spawn(
        process.execPath,
        [svcBin, 'exec', '--', 'bash', '-c', 'echo "$SVC_RPC_URL"; exec sleep 60'],
        { env: cli.env, stdio: ['ignore', 'pipe', 'inherit'] },
      )
      expect(await firstLine(child)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      const pids = treeOf(child.pid!).map((p) => p.pid)
      child.kill(signal)
      expect(await exitOf(child)).toBe(signal === 'SIGTERM' ? 143 : 130)
      await expect.poll(noneRunning(pids), { timeout: 5_000 }).toEqual([])
    })

  test('kill -9 of svc exec’s parent: svc, Anvil and the command are gone', async () => {
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, [${JSON.stringify(svcBin)}, 'exec', '--', 'bash', '-c', 'echo "$SVC_RPC_URL"; exec sleep 60'], { stdio: 'inherit' })`,
      ],
      { env: cli.env, stdio: ['ignore', 'pipe', 'inherit'] },
    )
    started.push(parent.pid!)
    await firstLine(parent)
    const pids = treeOf(parent.pid!)
      .map((p) => p.pid)
      .filter((pid) => pid !== parent.pid)
    parent.kill('SIGKILL')
    await expect.poll(noneRunning(pids), { timeout: 5_000 }).toEqual([])
  })
})
