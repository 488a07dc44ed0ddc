import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll } from 'vitest'
import { main } from '../../cli/cli.js'

export const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))
export const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/openapi/${name}`, import.meta.url))

export type CliResult = { code: number; stdout: string; stderr: string }
export type Cli = {
  /** A temporary SVC_CONFIG_DIR, fresh for this Cli. */
  configDir: string
  /** The environment every run gets, before a run's own variables. */
  env: NodeJS.ProcessEnv
  /** `main(argv, env)` in this process; `tty` makes stdout a terminal. */
  run(args: string[], env?: NodeJS.ProcessEnv, options?: { tty?: boolean }): Promise<CliResult>
  /** `node bin/svc.js …` as a child process (asynchronous: the test server runs in this process). */
  spawn(args: string[], env?: NodeJS.ProcessEnv): Promise<CliResult>
  /** `run` that expects exit code 0 and returns stdout. */
  ok(args: string[], env?: NodeJS.ProcessEnv): Promise<string>
  /** `run … --json` that expects exit code 0 and returns the parsed document. */
  json(args: string[], env?: NodeJS.ProcessEnv): Promise<any>
}

/** The parent's environment without svc's own variables and NO_COLOR, so the host cannot change what a test sees. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith('SVC_') && name !== 'NO_COLOR' && name !== 'FORCE_COLOR',
    ),
  )
}

/** Config dirs of this test file's Clis, removed after its tests (thousands were left in the temp dir). */
const configDirs: string[] = []
// Imported while vitest collects a test file, so this hook is that file's own.
afterAll(() => {
  for (const dir of configDirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

export function createCli(env: NodeJS.ProcessEnv = {}): Cli {
  const configDir = mkdtempSync(join(tmpdir(), 'svc-cli-'))
  configDirs.push(configDir)
  const base = { ...cleanEnv(), SVC_CONFIG_DIR: configDir, ...env }

  async function run(
    args: string[],
    extra: NodeJS.ProcessEnv = {},
    options: { tty?: boolean } = {},
  ): Promise<CliResult> {
    let stdout = ''
    let stderr = ''
    const io = {
      stdout: { write: (chunk: string) => (stdout += chunk), isTTY: options.tty === true },
      stderr: { write: (chunk: string) => (stderr += chunk) },
      stdin: Readable.from([]),
    }
    const code = await main(['node', 'svc', ...args], { ...base, ...extra }, io)
    return { code, stdout, stderr }
  }

  function spawn(args: string[], extra: NodeJS.ProcessEnv = {}): Promise<CliResult> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [svcBin, ...args],
        { env: { ...base, ...extra }, encoding: 'utf8' },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0
          resolve({ code, stdout, stderr })
        },
      )
    })
  }

  async function ok(args: string[], extra?: NodeJS.ProcessEnv): Promise<string> {
    const result = await run(args, extra)
    if (result.code !== 0) throw new Error(`svc ${args.join(' ')} exited with ${result.code}: ${result.stderr.trim()}`)
    return result.stdout
  }

  return {
    configDir,
    env: base,
    run,
    spawn,
    ok,
    json: async (args, extra) => JSON.parse(await ok([...args, '--json'], extra)),
  }
}

/**
 * A docs page's shell block as a reader runs it: `bash -eo pipefail` in `dir` (made here, removed after the file's
 * tests), with `svc` (this repo's bin/svc.js) on the PATH and `cli`'s environment (its config dir, SVC_BASE_URL, …).
 */
export function docsShell(cli: Cli): {
  dir: string
  bash(script: string, env?: NodeJS.ProcessEnv): Promise<CliResult>
} {
  const dir = mkdtempSync(join(tmpdir(), 'svc-docs-'))
  configDirs.push(dir)
  mkdirSync(join(dir, 'bin'))
  symlinkSync(svcBin, join(dir, 'bin', 'svc'))
  const bash = (script: string, env: NodeJS.ProcessEnv = {}) =>
    new Promise<CliResult>((resolve) =>
      execFile(
        'bash',
        ['-eo', 'pipefail', '-c', script],
        { cwd: dir, env: { ...cli.env, ...env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` }, encoding: 'utf8' },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      ),
    )
  return { dir, bash }
}
