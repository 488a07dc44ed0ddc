/**
 * A start on a data dir whose disk is full, or that is read-only, says so (issue 21, minor). The data dir is on a
 * small tmpfs (root only; skipped otherwise).
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { startSvc } from '../../../server/start-server.js'

const isRoot = process.getuid?.() === 0 && process.platform === 'linux'
const mounts: string[] = []
afterAll(() => {
  for (const mount of mounts) {
    execFileSync('umount', [mount])
    rmSync(mount, { recursive: true, force: true })
  }
})

function smallDisk(options: string) {
  const mount = mkdtempSync(join(tmpdir(), 'svc-storage-'))
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', mount])
  mounts.push(mount)
  return mount
}

describe.skipIf(!isRoot)('a data dir on storage that cannot be written', () => {
  test('a full disk: the start fails saying the data dir is on a full disk', async () => {
    const mount = smallDisk('size=1m')
    const dataDir = join(mount, 'data')
    mkdirSync(dataDir)
    try {
      writeFileSync(join(mount, 'filler'), Buffer.alloc(2 * 2 ** 20))
    } catch {
      // ENOSPC: the filler took what there was.
    }
    await expect(startSvc({ dataDir, rpcPort: 0 })).rejects.toThrow(
      new RegExp(`^the data dir ${dataDir} is on a full disk: free space there, or pass --data-dir DIR \\(ENOSPC`),
    )
  })

  test('a read-only data dir: the start fails saying so', async () => {
    const mount = smallDisk('size=1m')
    mkdirSync(join(mount, 'data'))
    execFileSync('mount', ['-o', 'remount,ro', mount])
    const dataDir = join(mount, 'data')
    await expect(startSvc({ dataDir })).rejects.toThrow(
      new RegExp(`^the data dir ${dataDir} is read-only: make it writable, or pass --data-dir DIR \\(EROFS`),
    )
  })
})
