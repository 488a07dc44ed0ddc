/**
 * A start on a data dir whose disk is full, or that is read-only, says so (issue 21, minor). The data dir is on a
 * small tmpfs (root only; skipped otherwise).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { storageUnavailable } from '../../../server/data-dir/storage-errors.js'
import { startSvc } from '../../../server/start/index.js'
import { isRoot, chattr, fillDisk, createBrokenStorage } from '../../helpers/storage-load.js'

const { smallDisk, immutableDir } = createBrokenStorage()

describe.skipIf(!isRoot)('a data dir on storage that cannot be written', () => {
  test('a full disk: the start fails saying the data dir is on a full disk', async () => {
    const { dataDir, filler } = smallDisk('1m')
    fillDisk(filler)
    await expect(startSvc({ mode: 'up', dataDir, rpcPort: 0 })).rejects.toThrow(
      new RegExp(`^the data dir ${dataDir} is on a full disk: free space there, or pass --data-dir DIR \\(ENOSPC`),
    )
  })

  test('a read-only data dir: the start fails saying so', async () => {
    const { mount, dataDir } = smallDisk('1m')
    execFileSync('mount', ['-o', 'remount,ro', mount])
    await expect(startSvc({ mode: 'up', dataDir })).rejects.toThrow(
      new RegExp(`^the data dir ${dataDir} is read-only: make it writable, or pass --data-dir DIR \\(EROFS`),
    )
  })
})

/** An error as better-sqlite3 raises it: only its code tells what failed. */
const sqliteError = (code: string) => Object.assign(new Error('disk I/O error'), { code })

describe('a write that failed mid-run (issue 21 item 4)', () => {
  test('SQLite saying the disk is full is a 503 naming the data dir, with Retry-After', () => {
    const error = storageUnavailable('/data/svc', sqliteError('SQLITE_FULL'))
    expect(error).toMatchObject({ status: 503, code: 'unavailable', retryAfterSeconds: 5, problem: 'full' })
    expect(error?.message).toBe(
      'svc could not write to its data dir /data/svc: the disk is full (free space there, then retry)',
    )
  })

  test("SQLite's I/O error on a data dir that takes writes again is a 503 to retry; other errors stay what they were", () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-storage-'))
    try {
      const error = storageUnavailable(dataDir, sqliteError('SQLITE_IOERR_WRITE'))
      expect(error).toMatchObject({ status: 503, retryAfterSeconds: 5, problem: 'write-failed' })
      expect(error?.message).toBe(
        `svc could not write to its data dir ${dataDir}: a write failed with an I/O error, and the data dir takes writes again (retry)`,
      )
      expect(storageUnavailable(dataDir, Object.assign(new Error('denied'), { code: 'EACCES' }))).toBeUndefined()
      expect(storageUnavailable(dataDir, new Error('no code'))).toBeUndefined()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })

  test.skipIf(!isRoot)('a writable data dir whose database file is immutable (mid `chattr -R -i`) is read-only', () => {
    const dataDir = immutableDir()
    writeFileSync(join(dataDir, 'svc.sqlite-wal'), '')
    execFileSync('chattr', ['+i', join(dataDir, 'svc.sqlite-wal')])
    try {
      expect(storageUnavailable(dataDir, sqliteError('SQLITE_IOERR_WRITE'))?.problem).toBe('read-only')
    } finally {
      execFileSync('chattr', ['-i', join(dataDir, 'svc.sqlite-wal')])
    }
  })

  test.skipIf(!isRoot)('an I/O error on a data dir made immutable (chattr +i) is a 503 saying read-only', () => {
    const dataDir = immutableDir()
    chattr('+i', dataDir)
    const error = storageUnavailable(dataDir, sqliteError('SQLITE_IOERR_WRITE'))
    expect(error?.message).toBe(
      `svc could not write to its data dir ${dataDir}: it is read-only (make it writable, then retry)`,
    )
  })
})
