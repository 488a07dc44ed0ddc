/**
 * A fresh project with svc installed from its `npm pack` tarball, next to other packages, as a user installs it.
 *
 * `npm pack` runs in a copy of the repo's sources (its node_modules linked), so building the package (JavaScript and
 * `.d.ts`) never swaps the dist/ that other test files run. The install uses npm's cache (`--prefer-offline`) and
 * skips install scripts: the only one svc's tree has is better-sqlite3's native build (a minute of compiling), so the
 * project gets the repo's own build of the same version for the same Node instead.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
// @ts-expect-error: bin/build.js is plain JavaScript without types
import { sourceDirs } from '../../bin/build.js'

const run = promisify(execFile)
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** What `npm pack` needs to build the package. */
const sources = ['bin', 'patches', ...sourceDirs, 'package.json', 'README.md', 'tsconfig.json', 'tsconfig.build.json']

export type PackedProject = {
  /** The project's directory (outside the repo, so nothing resolves from the repo's node_modules). */
  dir: string
  /** Seconds spent packing and installing. */
  timings: { pack: number; install: number }
  /** Runs a command in the project; rejects with its output when it exits non-zero. */
  exec(
    file: string,
    args: string[],
    options?: { env?: NodeJS.ProcessEnv; timeout?: number },
  ): Promise<{ stdout: string; stderr: string }>
  remove(): void
}

/** The environment for the project's processes: this test run's vitest variables and npm's script context left out. */
export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const ours = /^(VITEST|TEST$|NODE_OPTIONS$|INIT_CWD$|npm_lifecycle_|npm_package_|npm_command$)/i
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !ours.test(key)))
  return { ...env, NO_COLOR: '1', ...extra }
}

/**
 * Packs svc and installs the tarball with `packages` (exact `name@version` specs) into a new temporary project.
 * @param options.packages installed next to svc in the same `npm install`
 */
export async function createPackedProject(options: { packages: string[] }): Promise<PackedProject> {
  const base = mkdtempSync(join(tmpdir(), 'svc-pack-'))
  const stage = join(base, 'svc')
  const dir = join(base, 'project')
  const exec: PackedProject['exec'] = (file, args, { env, timeout = 120_000 } = {}) =>
    run(file, args, { cwd: dir, env: cleanEnv(env), timeout, maxBuffer: 64 * 1024 * 1024 })
  try {
    let started = performance.now()
    mkdirSync(stage)
    for (const path of sources) cpSync(join(root, path), join(stage, path), { recursive: true })
    symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir')
    await run('npm', ['pack', '--loglevel=error', '--pack-destination', base], {
      cwd: stage,
      env: cleanEnv(),
      maxBuffer: 64 * 1024 * 1024,
    })
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
    const tarball = join(base, `svc-${version}.tgz`)
    const pack = (performance.now() - started) / 1000

    started = performance.now()
    mkdirSync(dir)
    writeFileSync(
      join(dir, 'package.json'),
      `${JSON.stringify({ name: 'svc-user-project', private: true, type: 'module' }, null, 2)}\n`,
    )
    await exec(
      'npm',
      [
        'install',
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--loglevel=error',
        tarball,
        ...options.packages,
      ],
      { timeout: 300_000 },
    )
    copyNativeSqlite(dir)
    const install = (performance.now() - started) / 1000
    return { dir, timings: { pack, install }, exec, remove: () => rmSync(base, { recursive: true, force: true }) }
  } catch (error) {
    rmSync(base, { recursive: true, force: true })
    throw error
  }
}

/** Puts the repo's compiled better-sqlite3 addon into the project's copy (the same version, checked). */
function copyNativeSqlite(dir: string): void {
  const ours = dirname(createRequire(join(root, 'package.json')).resolve('better-sqlite3/package.json'))
  const theirs = join(dir, 'node_modules', 'better-sqlite3')
  const version = (path: string) =>
    (JSON.parse(readFileSync(join(path, 'package.json'), 'utf8')) as { version: string }).version
  if (version(ours) !== version(theirs))
    throw new Error(`better-sqlite3 ${version(theirs)} installed, the repo built ${version(ours)}`)
  mkdirSync(join(theirs, 'build', 'Release'), { recursive: true })
  copyFileSync(
    join(ours, 'build', 'Release', 'better_sqlite3.node'),
    join(theirs, 'build', 'Release', 'better_sqlite3.node'),
  )
}
