/**
 * The data dir stops taking writes while buyers pay (issue 21 item 4): a disk that fills (a small tmpfs) and files
 * made immutable (`chattr +i`). No request answers 500: one that needed a write answers 503 naming the data dir, svc
 * lives on (no SIGBUS), pays again once the disk takes writes, and after a restart the ledger and the chain agree.
 * Root only (mount, chattr); skipped otherwise.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { startSeeded, usedOnChain } from '../helpers/crash-at.js'
import { allSettlements, createApi, fund, login, startLoad, type Answer } from '../helpers/storage-load.js'
import type { SvcProcess } from '../helpers/svc-process.js'

const isRoot = process.getuid?.() === 0 && process.platform === 'linux'
const running: SvcProcess[] = []
const cleanups: (() => void)[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  for (const cleanup of cleanups.reverse()) cleanup()
})

const buyers = Array.from({ length: 6 }, () => privateKeyToAccount(generatePrivateKey()))

/** Writes zeros to `file` until the disk is full. */
function fillDisk(file: string) {
  const fd = openSync(file, 'w')
  const chunk = Buffer.alloc(1 << 20)
  try {
    for (;;) writeSync(fd, chunk)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  } finally {
    closeSync(fd)
  }
}

const chattr = (flag: '+i' | '-i', dir: string) => execFileSync('chattr', ['-R', flag, dir])

/**
 * Pays until `before` answers, breaks the data dir, pays until `broken` requests were refused for it (and a
 * control-plane write was tried), repairs it, pays until `after` more answers; stops the load and svc, starts it
 * again, and checks everything the buyers saw against the ledger and the chain.
 */
async function payThrough(dataDir: string, problem: 'full' | 'read-only', breakIt: () => void, repair: () => void) {
  const svc = await startSeeded(running, dataDir)
  await fund(svc, buyers)
  const token = await login(svc)
  const load = startLoad(svc, buyers, `${svc.ready.seed.apis[0].gateway_url}/weather/paris`)
  await load.until(0, (answer) => answer.status === 200, 12)
  const brokenAt = load.answers.length
  breakIt()
  await load.until(brokenAt, (answer) => answer.status !== 200, 12)
  // svc lives on (before: SIGBUS on a memory-mapped page of an immutable file).
  expect(svc.child.signalCode).toBeNull()
  expect(svc.child.exitCode).toBeNull()
  const control = await createApi(svc, token, `broken-disk-${problem === 'full' ? 'full' : 'ro'}`)
  const controlError = ((await control.json()) as { error: string }).error
  const broken = load.answers.slice(brokenAt)
  repair()
  const repairedAt = load.answers.length
  await load.until(repairedAt, (answer) => answer.status === 200, 12)
  await load.stop()
  const alive = svc.child.exitCode === null && svc.child.signalCode === null
  await svc.stop()

  const again = await startSeeded(running, dataDir)
  const rows = await allSettlements(again)
  const onChain = (await Promise.all(buyers.map((buyer) => usedOnChain(again, buyer.address as Address)))).flat()
  const answered = load.answers.flatMap((answer) => (answer.transaction ? [answer.transaction] : []))
  const statuses = count(load.answers.map((answer) => answer.status))
  console.info(
    `storage-mid-run (${problem}): ${load.answers.length} answers ${JSON.stringify(statuses)}, while broken ${JSON.stringify(count(broken.map((answer) => answer.status)))}, control plane ${control.status}; svc ${alive ? 'alive' : `died (${svc.child.signalCode})`}; ${onChain.length} on chain, ${rows.length} in the ledger`,
  )

  expect(alive).toBe(true)
  expect(load.answers.filter((answer) => answer.status >= 500 && answer.status !== 503)).toEqual([])
  const refused = broken.filter((answer) => answer.status !== 200)
  for (const answer of refused) expect(answer).toMatchObject(storage503(dataDir, problem))
  expect(control.status).toBe(503)
  expect(controlError).toMatch(storageMessage(dataDir, problem))
  // No double charge; every transaction on the chain is in the ledger, once, and nothing more; every paid answer too.
  expect(new Set(onChain).size).toBe(onChain.length)
  const recorded = rows.map((row) => row.transaction)
  expect(recorded.length).toBe(new Set(recorded).size)
  expect(new Set(recorded)).toEqual(new Set(onChain))
  for (const transaction of answered) expect(recorded).toContain(transaction)
  // A charge the buyer got no answer for is recorded as such.
  for (const row of rows) if (!answered.includes(row.transaction)) expect(row.delivered).toBe(false)
  return { answers: load.answers, broken }
}

const storageMessage = (dataDir: string, problem: 'full' | 'read-only') =>
  new RegExp(`data dir ${dataDir}.*${problem === 'full' ? 'the disk is full' : 'it is read-only'}`)

const storage503 = (dataDir: string, problem: 'full' | 'read-only'): Answer =>
  ({ status: 503, error: expect.stringMatching(storageMessage(dataDir, problem)), retryAfter: '5' }) as Answer

function count(values: number[]) {
  const counts: Record<number, number> = {}
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1
  return counts
}

describe.skipIf(!isRoot)('the data dir stops taking writes under paid load', () => {
  test('a disk that fills: 503s naming the data dir, nothing charged without a record, ledger = chain', async () => {
    const mount = mkdtempSync(join(tmpdir(), 'svc-full-'))
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=48m', 'tmpfs', mount])
    cleanups.push(() => {
      execFileSync('umount', [mount])
      rmSync(mount, { recursive: true, force: true })
    })
    const dataDir = join(mount, 'data')
    mkdirSync(dataDir)
    const filler = join(mount, 'filler')
    await payThrough(
      dataDir,
      'full',
      () => fillDisk(filler),
      () => rmSync(filler),
    )
  }, 120_000)

  test('files made immutable (chattr +i): svc survives, 503s say read-only, ledger = chain', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'svc-immutable-'))
    cleanups.push(() => {
      chattr('-i', dataDir)
      rmSync(dataDir, { recursive: true, force: true })
    })
    await payThrough(
      dataDir,
      'read-only',
      () => {
        // Written back first (as the kernel does within 30 s): SQLite's memory-mapped pages are then clean, and the
        // next write to one faults on an immutable file (SIGBUS) where any is mapped.
        execFileSync('sync')
        chattr('+i', dataDir)
      },
      () => chattr('-i', dataDir),
    )
  }, 120_000)
})
