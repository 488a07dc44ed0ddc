import { accessSync, constants, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { SvcError } from '../../core/errors.js'

/**
 * The Anvil release svc is tested with: the version of the `@foundry-rs/anvil-<platform>-<arch>` package it
 * installs (a test checks it matches package.json).
 */
export const anvilVersion = '1.7.1'

/**
 * Foundry's name for each Node platform and CPU (`linux`/`x64` → `linux-amd64`); foundry publishes no other
 * combination.
 */
const foundryTargets: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  win32: { x64: 'win32-amd64' },
}

/** `@foundry-rs/anvil-darwin-arm64` for macOS on Apple silicon …; undefined where foundry publishes no package. */
export function getAnvilPackageName(platform: string, arch: string): string | undefined {
  const target = foundryTargets[platform]?.[arch]
  return target ? `@foundry-rs/anvil-${target}` : undefined
}

export type ResolveAnvilBinaryOptions = {
  /** SVC_ANVIL_BIN: a path to the binary, or a command name looked up on PATH. Wins over everything else. */
  explicit?: string | undefined
  /** Where PATH and HOME are read. @defaultValue process.env */
  env?: NodeJS.ProcessEnv | undefined
  /** @defaultValue process.platform */
  platform?: string | undefined
  /** @defaultValue process.arch */
  arch?: string | undefined
  /**
   * The directory of an installed package, undefined when it is not installed.
   * @defaultValue Node's resolution from svc's own files
   */
  resolvePackage?: ((name: string) => string | undefined) | undefined
}

/** Node's resolution, from where svc is installed. */
function resolveInstalledPackage(name: string): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${name}/package.json`))
  } catch {
    return undefined
  }
}

function isExecutableFile(path: string, platform: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    if (platform !== 'win32') accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** The first `name` on PATH, as a full path (on Windows, with the extensions of PATHEXT). */
function findOnPath(name: string, env: NodeJS.ProcessEnv, platform: string): string | undefined {
  const extensions = platform === 'win32' ? ['', ...(env.PATHEXT ?? '.EXE;.CMD;.BAT').split(';').filter(Boolean)] : ['']
  const separator = platform === 'win32' ? ';' : delimiter
  for (const dir of (env.PATH ?? env.Path ?? '').split(separator)) {
    if (!dir) continue
    for (const extension of extensions) {
      const candidate = join(dir, name + extension)
      if (isExecutableFile(candidate, platform)) return candidate
    }
  }
  return undefined
}

/**
 * Finds the Anvil binary, in this order: `explicit` (SVC_ANVIL_BIN); the `@foundry-rs/anvil-<platform>-<arch>`
 * package for this machine, when it is installed; `anvil` on PATH; foundryup's `~/.foundry/bin/anvil`.
 * @returns the binary's path
 * @throws SvcError (`anvil_not_found`) naming the package to install for this machine, and foundryup
 */
export function resolveAnvilBinary(options: ResolveAnvilBinaryOptions = {}): string {
  const {
    explicit,
    env = process.env,
    platform = process.platform,
    arch = process.arch,
    resolvePackage = resolveInstalledPackage,
  } = options
  const executable = platform === 'win32' ? 'anvil.exe' : 'anvil'

  if (explicit) {
    const isPath = /[\\/]/.test(explicit)
    const found = isPath
      ? isExecutableFile(explicit, platform)
        ? explicit
        : undefined
      : findOnPath(explicit, env, platform)
    if (found) return found
    throw new SvcError(
      `SVC_ANVIL_BIN is "${explicit}", which is not ${isPath ? 'an executable file' : 'a command on PATH'}`,
      { code: 'anvil_not_found' },
    )
  }

  const packageName = getAnvilPackageName(platform, arch)
  const packageDir = packageName ? resolvePackage(packageName) : undefined
  if (packageDir) {
    const binary = join(packageDir, 'bin', executable)
    if (isExecutableFile(binary, platform)) return binary
  }

  const onPath = findOnPath('anvil', env, platform)
  if (onPath) return onPath

  const home = env.HOME || env.USERPROFILE || homedir()
  const foundryup = join(home, '.foundry', 'bin', executable)
  if (isExecutableFile(foundryup, platform)) return foundryup

  const install = packageName
    ? `install it with \`npm i -D ${packageName}@${anvilVersion}\` or with foundryup (https://getfoundry.sh)`
    : `foundry publishes no Anvil package for ${platform}-${arch}: install it with foundryup (https://getfoundry.sh)`
  throw new SvcError(`Anvil not found: ${install}, or set SVC_ANVIL_BIN to its path`, { code: 'anvil_not_found' })
}
