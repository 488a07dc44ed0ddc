import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { sandboxChainId } from '../../core/sandbox-usdc.js'
import { isProcessRunning, readCommandLine } from '../../core/os-process.js'
import { twinNames, twinSpecs } from '../../core/twins.js'

/** The file, in a sandbox's data dir, that holds the pid of its Anvil while it runs. */
export const anvilPidFileName = 'anvil.pid'

/** The file, in a sandbox's data dir, that holds the pid of a twin's Anvil (core/twins.ts) while it runs. */
export const twinAnvilPidFileName = (twin: string) => `anvil-${twin}.pid`

/** The pid files of every Anvil a sandbox may run: the Sandbox chain's, and each twin's svc knows. */
export const anvilPidFileNames = [anvilPidFileName, ...twinNames.map(twinAnvilPidFileName)]

/** The chain ids svc starts Anvils with: the Sandbox chain's and the twins'. */
const svcChainIds = [sandboxChainId, ...Object.values(twinSpecs).map((twin) => twin.chainId)]

/** Records the pid of a started Anvil. */
export function writeAnvilPidFile(file: string, pid: number): void {
  writeFileSync(file, `${pid}\n`, { mode: 0o600 })
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/** Removes the pid file once its Anvil has exited, unless it names another pid by then (a restarted Anvil). */
export function removeAnvilPidFile(file: string, pid: number): void {
  if (readPid(file) === pid) rmSync(file, { force: true })
}

/**
 * Whether `pid` is an Anvil of a sandbox: an `anvil` binary started with the sandbox chain id or a twin's. (On Windows
 * only the image name can be read: `anvil.exe`.)
 */
export function isSandboxAnvil(pid: number): boolean {
  const args = readCommandLine(pid)
  const commandLine = args?.join(' ')
  if (!commandLine || !/(?:^|[\\/])anvil(?:\.exe)?(?:\s|$)/i.test(commandLine)) return false
  if (process.platform === 'win32') return true
  const chainId = /\s--chain-id\s+(\d+)(?:\s|$)/.exec(commandLine)?.[1]
  return chainId !== undefined && svcChainIds.includes(Number(chainId))
}

/** Polls until the process is gone; false if it is still there after `timeoutMs`. */
async function waitUntilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs
  while (isProcessRunning(pid)) {
    if (performance.now() > deadline) return false
    await delay(20)
  }
  return true
}

export type StaleAnvil = { pid: number }

/**
 * Stops the Anvil a crashed run left behind, named by `file` (the caller knows that run is over: it holds the data
 * dir's lock): SIGTERM, then SIGKILL if it is still there after 3 s. A pid that is no longer a sandbox Anvil (the OS
 * gave it to another process) is left alone. The file is removed.
 * @returns the pid that was stopped, undefined when there was nothing to stop
 */
export async function stopStaleAnvil(file: string): Promise<StaleAnvil | undefined> {
  const pid = readPid(file)
  if (pid === undefined) return undefined
  rmSync(file, { force: true })
  if (pid === process.pid || !isProcessRunning(pid) || !isSandboxAnvil(pid)) return undefined
  try {
    process.kill(pid, 'SIGTERM')
    if (!(await waitUntilGone(pid, 3_000))) {
      process.kill(pid, 'SIGKILL')
      await waitUntilGone(pid, 1_000)
    }
  } catch {
    // Gone meanwhile, or not ours to signal (EPERM): nothing more to do.
  }
  return { pid }
}
