/**
 * The data dir's lock (server/data-dir/lock.ts): a second start is refused while the first runs; a lock whose pid the
 * OS gave to a process that is not svc (issue 21, minor) does not block the start.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { lockDataDir } from '../../../server/data-dir/lock.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-lock-'))
let other: ChildProcess
beforeAll(() => {
  // A live process that is not svc, whose pid a stale lock names.
  other = spawn('sleep', ['60'], { stdio: 'ignore' })
})
afterAll(() => {
  other.kill('SIGKILL')
  rmSync(dir, { recursive: true, force: true })
})

describe('the data dir lock', () => {
  test('a second lock is refused while the first is held; the lock names the pid and its start time', async () => {
    const first = await lockDataDir(dir)
    try {
      expect(readFileSync(join(dir, 'svc.lock'), 'utf8')).toMatch(new RegExp(`^${process.pid} \\S+\\n$`))
      await expect(lockDataDir(dir)).rejects.toThrow(`another svc up (pid ${process.pid}) is using ${dir}`)
    } finally {
      first.release()
    }
  })

  test.each([
    ['with another start time', (pid: number) => `${pid} 1\n`],
    ['of an older svc (no start time), held by a process that is not Node', (pid: number) => `${pid}\n`],
  ])('a lock whose pid went to another process, %s, is taken over', async (_, content) => {
    writeFileSync(join(dir, 'svc.lock'), content(other.pid!))
    const lock = await lockDataDir(dir)
    lock.release()
  })
})
