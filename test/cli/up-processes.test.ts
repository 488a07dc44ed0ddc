import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { resolveAnvilBinary } from '../../chain/anvil/binary.js'
import { isProcessRunning } from '../../core/os-process.js'
import { deadPid, holdPort, readSandboxPids } from '../helpers/processes.js'
import { startSvcProcess } from '../helpers/svc-process.js'

// Nothing outlives svc: real processes, real signals, bounded polling.

const root = fileURLToPath(new URL('../..', import.meta.url))
const svcBin = join(root, 'bin', 'svc.js')
const temp = mkdtempSync(join(tmpdir(), 'svc-procs-'))
/** Processes a test started; whatever is still running at the end is killed. */
const started: number[] = []
afterEach(() => {
  for (const pid of started.splice(0)) if (isProcessRunning(pid)) process.kill(pid, 'SIGKILL')
})
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const gone = (pid: number) => () => !isProcessRunning(pid)
/** Which of a sandbox's two processes still run. */
const running = (pids: { svc: number; anvil: number }) => () => ({
  svc: isProcessRunning(pids.svc),
  anvil: isProcessRunning(pids.anvil),
})

/** Reads the first stdout line of a process (the ready line of `svc up --json`, whoever prints it). */
function readyLine(child: ChildProcess): Promise<Record<string, any>> {
  let stderr = ''
  child.stderr?.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line)))
    child.once('exit', (code) => reject(new Error(`exited with ${code} before the ready line: ${stderr}`)))
  })
}

/** An Anvil of a sandbox, as a crashed run leaves it: the sandbox chain id, parent gone (here: not svc's child). */
function startLeftoverAnvil(): number {
  const child = spawn(resolveAnvilBinary(), ['--host', '127.0.0.1', '--port', '0', '--chain-id', '845320402'], {
    stdio: 'ignore',
    detached: true,
  })
  child.unref()
  started.push(child.pid!)
  return child.pid!
}

describe('svc up leaves nothing behind', () => {
  test('kill -9 of svc: its Anvil is gone within 2 s, and a fixed --rpc-port is free for the next start', async () => {
    const { port: rpcPort, server } = await holdPort()
    server.close()
    const svc = await startSvcProcess(['--rpc-port', String(rpcPort)])
    const pids = readSandboxPids(svc.ready.data_dir)
    started.push(pids.anvil)
    expect(pids.svc).toBe(svc.child.pid)
    expect(isProcessRunning(pids.anvil)).toBe(true)

    svc.child.kill('SIGKILL')
    await expect.poll(gone(pids.anvil), { timeout: 2_000, message: 'Anvil stopped after kill -9 of svc' }).toBe(true)

    const again = await startSvcProcess(['--rpc-port', String(rpcPort)])
    expect(again.ready.rpc_url).toBe(`http://127.0.0.1:${rpcPort}`)
    // The crashed run's ephemeral data dir was cleaned up by this start.
    expect(existsSync(svc.ready.data_dir)).toBe(false)
    expect(await again.stop()).toBe(0)
  })

  test('a parent that dies while svc is still starting: svc stops once it is up, not orphaned for ever', async () => {
    // The parent starts svc and exits as soon as svc prints its first progress line ("starting the chain…"): svc's
    // code runs (it has read its parent), but its ready line is far off. (A fixed delay raced a loaded machine, where
    // Node took longer than the delay to start: svc then began as an orphan, a daemon by its own rule.)
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `const c = require('node:child_process').spawn(process.execPath, [${JSON.stringify(svcBin)}, 'up', '--no-tui', '--ephemeral', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] }); console.log(c.pid); c.stderr.once('data', () => process.exit(0))`,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    const svcPid = Number(
      await new Promise<string>((resolve) => parent.stdout!.once('data', (chunk) => resolve(String(chunk).trim()))),
    )
    started.push(svcPid)
    await expect
      .poll(gone(svcPid), { timeout: 15_000, message: 'svc stopped after its parent died during start-up' })
      .toBe(true)
  })

  test('the npm-like parent of svc killed with SIGKILL: svc and Anvil are gone within 2 s', async () => {
    // A parent that only starts svc (its output goes straight to us), as `npm start` does.
    const parent = spawn(
      process.execPath,
      [
        '-e',
        `require('node:child_process').spawn(process.execPath, [${JSON.stringify(svcBin)}, 'up', '--json', '--ephemeral', '--port', '0'], { stdio: 'inherit' })`,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    const ready = await readyLine(parent)
    const pids = readSandboxPids(ready.data_dir)
    started.push(pids.svc, pids.anvil)

    parent.kill('SIGKILL')
    await expect
      .poll(running(pids), { timeout: 2_000, message: 'svc and Anvil stopped after the parent died' })
      .toEqual({ svc: false, anvil: false })
    // It stopped cleanly: its ephemeral data dir is removed.
    expect(existsSync(ready.data_dir)).toBe(false)
  })

  for (const signal of ['SIGKILL', 'SIGTERM'] as const)
    test(`\`npm run svc -- up\` killed with ${signal}: svc and Anvil are gone within 2 s`, async () => {
      // --ignore-scripts: no prebuild (dist/ is built once for the whole run).
      const npm = spawn(
        'npm',
        ['run', '--silent', '--ignore-scripts', 'svc', '--', 'up', '--json', '--ephemeral', '--port', '0'],
        {
          cwd: root,
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      )
      const ready = await readyLine(npm)
      const pids = readSandboxPids(ready.data_dir)
      started.push(pids.svc, pids.anvil)

      npm.kill(signal)
      await expect
        .poll(running(pids), { timeout: 2_000, message: `svc and Anvil stopped after npm got ${signal}` })
        .toEqual({ svc: false, anvil: false })
    })
})

describe('a stale Anvil from a crashed run', () => {
  /** A data dir as a crashed run leaves it: its lock names a process that is gone, its Anvil's pid is recorded. */
  async function crashedDataDir(dir: string, anvilPid: number) {
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'svc.lock'), `${await deadPid()}\n`)
    writeFileSync(join(dir, 'anvil.pid'), `${anvilPid}\n`)
  }

  test('its pid in the data dir: stopped at the next start', async () => {
    const leftover = startLeftoverAnvil()
    const dataDir = join(temp, 'data')
    await crashedDataDir(dataDir, leftover)

    const svc = await startSvcProcess(['--data-dir', dataDir], process.env, { ephemeral: false })
    expect(isProcessRunning(leftover)).toBe(false)
    expect(readSandboxPids(dataDir).anvil).not.toBe(leftover)
    expect(await svc.stop()).toBe(0)
    expect(existsSync(join(dataDir, 'anvil.pid'))).toBe(false)
  })

  test('of an ephemeral run (a data dir in the temporary directory): stopped at the next start, the directory removed', async () => {
    const leftover = startLeftoverAnvil()
    const tmp = join(temp, 'tmp')
    const crashed = join(tmp, 'svc-ephemeral-crashed')
    await crashedDataDir(crashed, leftover)
    writeFileSync(join(crashed, '.svc-ephemeral'), '')

    const svc = await startSvcProcess([], { ...process.env, TMPDIR: tmp })
    expect(isProcessRunning(leftover)).toBe(false)
    expect(existsSync(crashed)).toBe(false)
    expect(await svc.stop()).toBe(0)
  })

  test('a pid that is not an Anvil of a sandbox (the OS reused it) is left alone', async () => {
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
    started.push(other.pid!)
    const dataDir = join(temp, 'reused')
    await crashedDataDir(dataDir, other.pid!)

    const svc = await startSvcProcess(['--data-dir', dataDir], process.env, { ephemeral: false })
    expect(isProcessRunning(other.pid!)).toBe(true)
    expect(await svc.stop()).toBe(0)
  })
})

describe('a taken port is named', () => {
  for (const flag of ['--rpc-port', '--port', '--chain-manager-port', '--facilitator-port'])
    test(flag, async () => {
      const { port, server } = await holdPort()
      try {
        const result = spawnSync(
          process.execPath,
          [svcBin, 'up', '--json', '--ephemeral', '--port', '0', flag, String(port)],
          { encoding: 'utf8' },
        )
        expect(result.status).toBe(1)
        expect(result.stdout).toBe('')
        // With --json the error is one JSON document on stderr (cli/cli.ts), here one line.
        const lines = result.stderr.trim().split('\n')
        expect(lines).toHaveLength(1)
        expect(JSON.parse(lines[0]!)).toEqual({
          error: expect.stringMatching(
            new RegExp(
              `port ${port} on 127\\.0\\.0\\.1 is in use: stop what runs there, or pass ${flag} 0 for a free port$`,
            ),
          ),
        })
      } finally {
        server.close()
      }
    })
})
