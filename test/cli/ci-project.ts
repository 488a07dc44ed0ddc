import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'
import { docBlock, pageBlocks } from '../docs/blocks.js'
import { svcBin } from './harness.js'

// What the tests of the CI page's examples share (github-action, ci-examples, direct-url-python tests): a project
// with svc installed, the processes it left, the section's code blocks.

export const root = fileURLToPath(new URL('../..', import.meta.url))
/** The CI page's blocks (the page that holds the GitHub workflow) by their `readme-test:` file name. */
export const ciBlocks: Record<string, string> = Object.fromEntries(
  pageBlocks(docBlock('github-workflow.yml').page).map((block) => [block.name, block.code]),
)

/** Directories removed after the file's tests. */
export const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/**
 * A project as a job checks it out and installs it: svc in node_modules/.bin, and an `npm test` that reads the
 * sandbox's environment (fails with FAIL_TESTS set). Its own SVC_CONFIG_DIR: the processes it leaves are found by it.
 */
export function project() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-action-'))
  dirs.push(dir)
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true })
  symlinkSync(svcBin, join(dir, 'node_modules', '.bin', 'svc'))
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, scripts: { test: 'node test.mjs' } }))
  writeFileSync(
    join(dir, 'test.mjs'),
    `if (process.env.FAIL_TESTS) { console.error('a test failed'); process.exit(1) }
const supported = await fetch(new URL('/supported', process.env.FACILITATOR_URL))
if (!supported.ok || !/^0x[0-9a-f]{64}$/.test(process.env.EVM_PRIVATE_KEY ?? '')) process.exit(1)
console.log('tests passed against', process.env.RESOURCE_SERVER_URL)
`,
  )
  const configDir = join(dir, 'config')
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(SVC_|INPUT_|STATE_|GITHUB_)/.test(name)),
  )
  return { dir, configDir, env: { ...env, SVC_CONFIG_DIR: configDir, CI: 'true', GITHUB_ACTIONS: 'true' } }
}

/** The processes that have `SVC_CONFIG_DIR=<configDir>` in their environment: svc and its Anvil, while they run. */
export function processesOf(configDir: string): number[] {
  const pids: number[] = []
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`SVC_CONFIG_DIR=${configDir}`))
        pids.push(Number(pid))
    } catch {}
  }
  return pids
}
/** Config dirs whose processes are killed after the file's tests, should a test leave any. */
export const leftovers: string[] = []
afterAll(() => {
  for (const configDir of leftovers) for (const pid of processesOf(configDir)) process.kill(pid, 'SIGKILL')
})

export type Exited = { code: number; stdout: string; stderr: string }

/** Runs a program to its end (asynchronously: nothing here blocks the test's own servers). */
export function exited(
  file: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Exited> {
  return new Promise((resolve) =>
    execFile(file, args, { ...options, encoding: 'utf8', timeout: 150_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    ),
  )
}
