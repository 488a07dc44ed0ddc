import { spawnSync } from 'node:child_process'
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeEach, describe, expect, test } from 'vitest'
import { anvilVersion, getAnvilPackageName, resolveAnvilBinary } from '../../../chain/anvil/binary.js'
import { startSvcProcess } from '../../helpers/svc-process.js'

const root = fileURLToPath(new URL('../../..', import.meta.url))
const svcBin = join(root, 'bin', 'svc.js')
const temp = mkdtempSync(join(tmpdir(), 'svc-anvil-bin-'))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

/** A stand-in binary: a small shell script. */
function standIn(path: string, body = 'exit 0'): string {
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, `#!/bin/sh\n${body}\n`)
  chmodSync(path, 0o755)
  return path
}

// The stand-ins are shell scripts.
describe.skipIf(process.platform === 'win32')(
  'resolveAnvilBinary: SVC_ANVIL_BIN, the package for this machine, PATH, foundryup',
  () => {
    let dir: string
    let places: { explicit: string; packageDir: string; pathDir: string; home: string }
    // Every case is a Mac on Apple silicon, whatever this machine is: the platform and the resolver are the test's.
    const resolve = (options: { explicit?: string; installed?: boolean } = {}) =>
      resolveAnvilBinary({
        explicit: options.explicit,
        env: { PATH: `${join(dir, 'empty')}:${places.pathDir}`, HOME: places.home },
        platform: 'darwin',
        arch: 'arm64',
        resolvePackage: (name) =>
          options.installed !== false && name === '@foundry-rs/anvil-darwin-arm64' ? places.packageDir : undefined,
      })

    beforeEach(() => {
      dir = mkdtempSync(join(temp, 'case-'))
      places = {
        explicit: standIn(join(dir, 'explicit', 'my-anvil')),
        packageDir: join(dir, 'node_modules', '@foundry-rs', 'anvil-darwin-arm64'),
        pathDir: join(dir, 'path'),
        home: join(dir, 'home'),
      }
      mkdirSync(join(dir, 'empty'))
      standIn(join(places.packageDir, 'bin', 'anvil'))
      standIn(join(places.pathDir, 'anvil'))
      standIn(join(places.home, '.foundry', 'bin', 'anvil'))
    })

    test('each place wins over the ones after it', () => {
      expect(resolve({ explicit: places.explicit })).toBe(places.explicit)
      expect(resolve()).toBe(join(places.packageDir, 'bin', 'anvil'))
      expect(resolve({ installed: false })).toBe(join(places.pathDir, 'anvil'))
      rmSync(join(places.pathDir, 'anvil'))
      expect(resolve({ installed: false })).toBe(join(places.home, '.foundry', 'bin', 'anvil'))
    })

    test('a file on PATH that is not executable is not Anvil', () => {
      chmodSync(join(places.pathDir, 'anvil'), 0o644)
      expect(resolve({ installed: false })).toBe(join(places.home, '.foundry', 'bin', 'anvil'))
    })

    test('SVC_ANVIL_BIN may name a command on PATH', () => {
      expect(resolve({ explicit: 'anvil', installed: false })).toBe(join(places.pathDir, 'anvil'))
    })

    test('nowhere: one line naming the package for this machine and foundryup', () => {
      rmSync(join(places.pathDir, 'anvil'))
      rmSync(join(places.home, '.foundry'), { recursive: true })
      expect(() => resolve({ installed: false })).toThrow(
        'Anvil not found: install it with `npm i -D @foundry-rs/anvil-darwin-arm64@1.7.1` or with foundryup (https://getfoundry.sh), or set SVC_ANVIL_BIN to its path',
      )
      const error = (() => {
        try {
          resolveAnvilBinary({
            env: { PATH: '', HOME: places.home },
            platform: 'freebsd',
            arch: 'x64',
            resolvePackage: () => undefined,
          })
        } catch (error) {
          return error as Error & { code: string; exitCode: number }
        }
      })()
      expect(error).toMatchObject({
        message:
          'Anvil not found: foundry publishes no Anvil package for freebsd-x64: install it with foundryup (https://getfoundry.sh), or set SVC_ANVIL_BIN to its path',
        code: 'anvil_not_found',
        exitCode: 1,
      })
    })

    test('an SVC_ANVIL_BIN that is not there is an error, not a fallback', () => {
      expect(() => resolve({ explicit: join(dir, 'nope', 'anvil') })).toThrow(
        `SVC_ANVIL_BIN is "${join(dir, 'nope', 'anvil')}", which is not an executable file`,
      )
    })
  },
)

describe('the Anvil packages', () => {
  test("Node's platform and arch, in foundry's names", () => {
    expect(getAnvilPackageName('linux', 'x64')).toBe('@foundry-rs/anvil-linux-amd64')
    expect(getAnvilPackageName('linux', 'arm64')).toBe('@foundry-rs/anvil-linux-arm64')
    expect(getAnvilPackageName('darwin', 'x64')).toBe('@foundry-rs/anvil-darwin-amd64')
    expect(getAnvilPackageName('darwin', 'arm64')).toBe('@foundry-rs/anvil-darwin-arm64')
    expect(getAnvilPackageName('win32', 'x64')).toBe('@foundry-rs/anvil-win32-amd64')
    expect(getAnvilPackageName('win32', 'arm64')).toBeUndefined()
    expect(getAnvilPackageName('freebsd', 'x64')).toBeUndefined()
  })

  test('the version the error names is the one package.json installs', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    const declared = { ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.devDependencies }[
      '@foundry-rs/anvil-linux-amd64'
    ]
    expect(declared).toBe(anvilVersion)
  })

  test.runIf(process.platform === 'linux' && process.arch === 'x64')(
    'on Linux x64 the installed package is found, its binary in bin/',
    () => {
      expect(resolveAnvilBinary({ env: { PATH: '' }, platform: 'linux', arch: 'x64' })).toMatch(
        /node_modules\/@foundry-rs\/anvil-linux-amd64\/bin\/anvil$/,
      )
    },
  )
})

describe.skipIf(process.platform === 'win32')('svc up and SVC_ANVIL_BIN', () => {
  test('svc up runs the Anvil SVC_ANVIL_BIN names', async () => {
    const marker = join(temp, 'ran')
    const wrapper = standIn(
      join(temp, 'wrapper', 'anvil'),
      `echo "$@" > "${marker}"\nexec "${resolveAnvilBinary()}" "$@"`,
    )
    const svc = await startSvcProcess([], { ...process.env, SVC_ANVIL_BIN: wrapper })
    expect(svc.ready).toMatchObject({ chain_id: 845320402 })
    expect(readFileSync(marker, 'utf8')).toMatch(/--chain-id 845320402/)
    expect(await svc.stop()).toBe(0)
  })

  test('an SVC_ANVIL_BIN that is not there: one line, exit code 1', () => {
    const result = spawnSync(process.execPath, [svcBin, 'up', '--json', '--ephemeral', '--port', '0'], {
      env: { ...process.env, SVC_ANVIL_BIN: join(temp, 'missing', 'anvil') },
      encoding: 'utf8',
    })
    expect(result.status).toBe(1)
    expect(result.stdout).toBe('')
    // With --json the error is one JSON document on stderr (cli/cli.ts).
    expect(result.stderr).toBe(
      `${JSON.stringify({ error: `SVC_ANVIL_BIN is "${join(temp, 'missing', 'anvil')}", which is not an executable file` })}\n`,
    )
  })
})
