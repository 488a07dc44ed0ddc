import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { chainStatePath, startSvc } from '../../../server/start/index.js'

// The data dir holds password hashes, verification tokens and the install's keys: nobody else on the machine may
// read it, whatever the umask, and a dir made by an older svc is tightened at start.

const modeOf = (path: string) => statSync(path).mode & 0o777
const databaseFiles = ['svc.sqlite', 'svc.sqlite-wal']
const keyFiles = ['jwt.secret', 'wallet.key', 'offer-receipt.key']

let parent: string
afterEach(() => rmSync(parent, { recursive: true, force: true }))

describe.skipIf(process.platform === 'win32')('data dir permissions', () => {
  test('a new data dir is 0700 and the database files (with -wal) 0600; no -shm (the WAL index is in memory)', async () => {
    parent = mkdtempSync(join(tmpdir(), 'svc-perm-'))
    const dataDir = join(parent, 'data')
    mkdirSync(dataDir, { mode: 0o755 }) // as an older `svc up` made it, under the usual umask
    const server = (await startSvc({ mode: 'server', dataDir })).server
    try {
      expect(modeOf(dataDir)).toBe(0o700)
      for (const file of databaseFiles) {
        expect(existsSync(join(dataDir, file)), file).toBe(true)
        expect(modeOf(join(dataDir, file)), file).toBe(0o600)
      }
      for (const file of keyFiles) expect(modeOf(join(dataDir, file)), file).toBe(0o600)
      // One exclusive connection keeps WAL's index in memory: no memory-mapped file to fault on (issue 21 item 4).
      expect(existsSync(join(dataDir, 'svc.sqlite-shm'))).toBe(false)
    } finally {
      await server.stop()
    }
  })

  test('an existing world-readable data dir, its database files and its chain state are tightened at start', async () => {
    parent = mkdtempSync(join(tmpdir(), 'svc-perm-'))
    const dataDir = join(parent, 'data')
    mkdirSync(dataDir)
    const first = (await startSvc({ mode: 'server', dataDir })).server
    await first.stop()
    const statePath = chainStatePath(dataDir)
    mkdirSync(join(dataDir, 'chain'))
    writeFileSync(statePath, '{}')
    const files = [...databaseFiles, ...keyFiles].map((file) => join(dataDir, file))
    const loosened = [dataDir, join(dataDir, 'chain'), statePath, ...files]
    for (const path of loosened)
      if (existsSync(path)) chmodSync(path, path === dataDir || path.endsWith('chain') ? 0o755 : 0o644)
    expect(modeOf(dataDir)).toBe(0o755)
    expect(modeOf(join(dataDir, 'svc.sqlite'))).toBe(0o644)
    expect(modeOf(join(dataDir, 'jwt.secret'))).toBe(0o644)

    const second = (await startSvc({ mode: 'server', dataDir })).server
    try {
      expect(modeOf(dataDir)).toBe(0o700)
      expect(modeOf(join(dataDir, 'chain'))).toBe(0o700)
      expect(modeOf(statePath)).toBe(0o600)
      for (const file of [...databaseFiles, ...keyFiles]) expect(modeOf(join(dataDir, file)), file).toBe(0o600)
    } finally {
      await second.stop()
    }
  })

  test('svc up on a data dir whose keys an older svc left 0644: the keys are 0600 once it runs, and still the same keys', async () => {
    parent = mkdtempSync(join(tmpdir(), 'svc-perm-'))
    const dataDir = join(parent, 'data')
    const first = (await startSvc({ mode: 'server', dataDir })).server
    await first.stop()
    const keysBefore = keyFiles.map((file) => readFileSync(join(dataDir, file), 'utf8'))
    for (const file of keyFiles) chmodSync(join(dataDir, file), 0o644)

    const svc = await startSvc({ mode: 'up', dataDir, log: () => {} })
    try {
      for (const file of keyFiles) expect(modeOf(join(dataDir, file)), file).toBe(0o600)
      expect(keyFiles.map((file) => readFileSync(join(dataDir, file), 'utf8'))).toEqual(keysBefore)
    } finally {
      await svc.stop()
    }
  })
})
