/**
 * The twin's Anvil leaves nothing behind either: its pid is kept in the data dir (`anvil-base-sepolia.pid`, restarts
 * included) as the Sandbox chain's is, so an Anvil of a twin that a crash left running is stopped at the next start.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, test } from 'vitest'
import { resolveAnvilBinary } from '../../chain/anvil/binary.js'
import { isSandboxAnvil } from '../../chain/anvil/pid-file.js'
import { isProcessRunning } from '../../core/os-process.js'
import { deadPid } from '../helpers/processes.js'
import { startSvcProcess } from '../helpers/svc-process.js'

const temp = mkdtempSync(join(tmpdir(), 'svc-twin-procs-'))
/** Processes a test started; whatever is still running at the end is killed. */
const started: number[] = []
afterEach(() => {
  for (const pid of started.splice(0)) if (isProcessRunning(pid)) process.kill(pid, 'SIGKILL')
})
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const twinPid = (dataDir: string) => Number(readFileSync(join(dataDir, 'anvil-base-sepolia.pid'), 'utf8').trim())

describe("the twin's Anvil", () => {
  test('its pid is in the data dir while it runs; a kill -9 of svc leaves no twin Anvil at the next start', async () => {
    const dataDir = join(temp, 'killed')
    const first = await startSvcProcess(['--data-dir', dataDir, '--twin', 'base-sepolia'], process.env, {
      ephemeral: false,
    })
    const pid = twinPid(dataDir)
    started.push(pid)
    expect(isSandboxAnvil(pid)).toBe(true)
    first.child.kill('SIGKILL')

    const second = await startSvcProcess(['--data-dir', dataDir, '--twin', 'base-sepolia'], process.env, {
      ephemeral: false,
    })
    expect(isProcessRunning(pid)).toBe(false)
    const now = twinPid(dataDir)
    expect(now).not.toBe(pid)
    expect(isProcessRunning(now)).toBe(true)
    expect(await second.stop()).toBe(0)
    expect(existsSync(join(dataDir, 'anvil-base-sepolia.pid'))).toBe(false)
  })

  test('an Anvil of a twin that a crashed run left (no watchdog to stop it) is stopped at the next start, with or without --twin', async () => {
    // As a crash leaves it: the twin's chain id, its parent gone (here: never svc's), its pid in the data dir.
    const leftover = spawn(resolveAnvilBinary(), ['--host', '127.0.0.1', '--port', '0', '--chain-id', '84532'], {
      stdio: 'ignore',
      detached: true,
    })
    leftover.unref()
    started.push(leftover.pid!)
    const dataDir = join(temp, 'crashed')
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(join(dataDir, 'svc.lock'), `${await deadPid()}\n`)
    writeFileSync(join(dataDir, 'anvil-base-sepolia.pid'), `${leftover.pid}\n`)
    await expect.poll(() => isSandboxAnvil(leftover.pid!)).toBe(true)

    const svc = await startSvcProcess(['--data-dir', dataDir], process.env, { ephemeral: false })
    expect(isProcessRunning(leftover.pid!)).toBe(false)
    expect(svc.stderr()).toContain(`svc: stopped the Anvil (pid ${leftover.pid}) that a crashed svc left running`)
    expect(existsSync(join(dataDir, 'anvil-base-sepolia.pid'))).toBe(false)
    expect(await svc.stop()).toBe(0)
  })
})
