/**
 * The data dir stops taking writes while buyers pay (issue 21 item 4): a disk that fills (a small tmpfs) and files
 * made immutable (`chattr +i`). No request answers 500: one that needed a write answers 503 naming the data dir, svc
 * lives on (no SIGBUS), pays again once the disk takes writes, and after a restart the ledger and the chain agree.
 * Root only (mount, chattr); skipped otherwise.
 */
import { execFileSync } from 'node:child_process'
import { rmSync } from 'node:fs'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test } from 'vitest'
import { startSeeded } from '../helpers/crash-at.js'
import {
  type Answer,
  isRoot,
  chattr,
  createApi,
  fillDisk,
  fund,
  login,
  restartAndReconcile,
  startLoad,
  createBrokenStorage,
} from '../helpers/storage-load.js'

const { running, smallDisk, immutableDir } = createBrokenStorage()
const buyers = Array.from({ length: 6 }, () => privateKeyToAccount(generatePrivateKey()))

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

  const { rows, onChain } = await restartAndReconcile(running, dataDir, buyers)
  const answered = load.answers.flatMap((answer) => (answer.transaction ? [answer.transaction] : []))
  const statuses = count(load.answers.map((answer) => answer.status))
  console.info(
    `storage-mid-run (${problem}): ${load.answers.length} answers ${JSON.stringify(statuses)}, while broken ${JSON.stringify(count(broken.map((answer) => answer.status)))}, control plane ${control.status}; svc ${alive ? 'alive' : `died (${svc.child.signalCode})`}; ${onChain.length} on chain, ${rows.length} in the ledger`,
  )

  expect(alive).toBe(true)
  // What svc logged, when it answered a 500 (the answer says only "internal error").
  if (load.answers.some((answer) => answer.status >= 500 && answer.status !== 503)) console.error(svc.stderr())
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
    const { dataDir, filler } = smallDisk('48m')
    await payThrough(
      dataDir,
      'full',
      () => fillDisk(filler),
      () => rmSync(filler),
    )
  }, 120_000)

  test('files made immutable (chattr +i): svc survives, 503s say read-only, ledger = chain', async () => {
    const dataDir = immutableDir()
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
