/**
 * A fresh project with svc installed from its `npm pack` tarball, next to other packages, as a user installs it.
 *
 * `npm pack` runs in a copy of the repo's sources (its node_modules linked), so building the package (JavaScript and
 * `.d.ts`) never swaps the dist/ that other test files run. The install uses npm's cache (`--prefer-offline`) and
 * skips install scripts: the only one svc's tree has is better-sqlite3's native build (a minute of compiling), so the
 * project gets the repo's own build of the same version for the same Node instead.
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
// @ts-expect-error: bin/build.js is plain JavaScript without types
import { sourceDirs } from '../../bin/build.js'

const run = promisify(execFile)
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
/** What `npm pack` needs to build the package. */
const sources = [
  'bin',
  'patches',
  ...sourceDirs,
  'schemas',
  'package.json',
  'README.md',
  'tsconfig.json',
  'tsconfig.build.json',
]

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

/** The tarball's path as the README's install lines write it (the repo cloned as `svc` beside the project). */
export const readmeTarball = '../svc/svc-0.1.0.tgz'

/**
 * The commands of a README install block, as they run in the project: `mkdir`/`cd` into it are the project's own
 * directory; `npm init -y`, `npm pkg set …` and `npm i -D …` run as written (the tarball's path replaced). Anything
 * else is refused, so the README cannot show a step this test does not take.
 */
export function installCommands(block: string): string[][] {
  const commands: string[][] = []
  for (const line of block.replace(/\\\n/g, ' ').split('\n')) {
    const text = line.replace(/#.*$/, '').trim()
    if (!text) continue
    for (const command of text.split('&&').map((part) => part.trim().split(/\s+/))) {
      const [program, verb] = command
      if (program === 'mkdir' || program === 'cd') continue
      if (program !== 'npm' || !['init', 'pkg', 'i', 'install'].includes(verb!))
        throw new Error(`README install block: a step the package test does not know: ${command.join(' ')}`)
      commands.push(command)
    }
  }
  return commands
}

/**
 * Packs svc and makes a new temporary project by running `steps` (from {@link installCommands}) in it. Installs skip
 * install scripts: the only one is better-sqlite3's native build, and the project gets the repo's own build of the same
 * version for this Node instead when it installs better-sqlite3.
 * @param options.steps the README's install blocks, in order
 * @param options.between runs after each step (e.g. to try the project as it is after the first)
 */
export async function createPackedProject(options: {
  steps: string[][][]
  between?: (project: PackedProject, step: number) => Promise<void>
}): Promise<PackedProject> {
  const base = mkdtempSync(join(tmpdir(), 'svc-pack-'))
  const dir = join(base, 'project')
  const exec: PackedProject['exec'] = (file, args, { env, timeout = 120_000 } = {}) =>
    run(file, args, { cwd: dir, env: cleanEnv(env), timeout, maxBuffer: 64 * 1024 * 1024 })
  try {
    let started = performance.now()
    const tarball = await packedTarball()
    const pack = (performance.now() - started) / 1000

    const project: PackedProject = {
      dir,
      timings: { pack, install: 0 },
      exec,
      remove: () => rmSync(base, { recursive: true, force: true }),
    }
    mkdirSync(dir)
    for (const [index, step] of options.steps.entries()) {
      started = performance.now()
      for (const [, verb, ...args] of step) {
        if (verb === 'i' || verb === 'install') {
          const specs = args.map((arg) => (arg === readmeTarball ? tarball : arg))
          const flags = ['--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']
          await exec('npm', ['install', ...flags, ...specs], { timeout: 300_000 })
          if (specs.some((spec) => spec.startsWith('better-sqlite3'))) copyNativeSqlite(dir)
        } else await exec('npm', [verb!, ...args])
      }
      project.timings.install += (performance.now() - started) / 1000
      await options.between?.(project, index)
    }
    return project
  } catch (error) {
    rmSync(base, { recursive: true, force: true })
    throw error
  }
}

/**
 * svc's tarball for these sources: packed once per content (the test files that install it share one `npm pack`,
 * about a minute of CPU each on a 2-core machine), kept under the temp dir by a hash of what goes into it. A file
 * packing it holds a lock dir; another waits for the tarball rather than packing the same sources again.
 */
async function packedTarball(): Promise<string> {
  const cache = join(tmpdir(), 'svc-pack-cache')
  mkdirSync(cache, { recursive: true })
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
  const tarball = join(cache, `svc-${version}-${sourcesHash()}.tgz`)
  const lock = `${tarball}.lock`
  for (const waitUntil = Date.now() + 600_000; !existsSync(tarball); ) {
    try {
      mkdirSync(lock)
    } catch {
      // Another file is packing (or one died packing: its lock is stale after 10 minutes).
      const since = statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()
      if (Date.now() - since > 600_000) rmSync(lock, { recursive: true, force: true })
      if (Date.now() > waitUntil) throw new Error(`npm pack: still locked by ${lock}`)
      await new Promise((resolve) => setTimeout(resolve, 250))
      continue
    }
    try {
      if (!existsSync(tarball)) await pack(lock, tarball, version)
    } finally {
      rmSync(lock, { recursive: true, force: true })
    }
  }
  return tarball
}

/** `npm pack` in a copy of the sources (the repo's dist/ stays as other files run it), renamed into place whole. */
async function pack(work: string, tarball: string, version: string): Promise<void> {
  const stage = join(work, 'svc')
  mkdirSync(stage)
  for (const path of sources) cpSync(join(root, path), join(stage, path), { recursive: true })
  symlinkSync(join(root, 'node_modules'), join(stage, 'node_modules'), 'dir')
  await run('npm', ['pack', '--loglevel=error', '--pack-destination', work], {
    cwd: stage,
    env: cleanEnv(),
    maxBuffer: 64 * 1024 * 1024,
  })
  renameSync(join(work, `svc-${version}.tgz`), tarball)
  // Tarballs of sources as they were an hour ago are not asked for again.
  const cache = dirname(tarball)
  for (const entry of readdirSync(cache)) {
    const path = join(cache, entry)
    if (entry.endsWith('.tgz') && path !== tarball && Date.now() - statSync(path).mtimeMs > 3_600_000) rmSync(path)
  }
}

/**
 * A hash of every file `npm pack` builds from (by their paths in the repo, so a copy of the same checkout, as
 * .ci/node24 runs, finds the tarball packed here), and of the dependency versions it installs with.
 */
function sourcesHash(): string {
  const hash = createHash('sha256')
  const walk = (path: string) => {
    if (statSync(path).isDirectory())
      for (const entry of readdirSync(path).sort()) {
        if (entry !== 'node_modules') walk(join(path, entry))
      }
    else hash.update(relative(root, path)).update(readFileSync(path))
  }
  for (const path of sources) walk(join(root, path))
  hash.update(readFileSync(join(root, 'package-lock.json')))
  return hash.digest('hex').slice(0, 16)
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
