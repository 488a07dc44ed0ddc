/**
 * A settlement whose record cannot be written after the chain moved the money (issue 21 item 4): svc is paused once a
 * payment is settled (SVC_PAUSE_AT=settlement-record), its data dir (a small tmpfs) is filled, and it goes on
 * (SIGUSR2). The buyer gets the paid answer (the money moved; the answer is in hand), the record is kept in memory
 * and written as soon as the disk has room; if svc dies first, the next start records it from the journal.
 * Root only (mount); skipped otherwise.
 */
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { decodePaymentResponseHeader } from '@x402/fetch'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, test, vi } from 'vitest'
import { isProcessRunning } from '../../core/os-process.js'
import { startSeeded } from '../helpers/crash-at.js'
import {
  allSettlements,
  isRoot,
  fillDisk,
  fund,
  payingFetch,
  restartAndReconcile,
  createBrokenStorage,
} from '../helpers/storage-load.js'
import type { SvcProcess } from '../helpers/svc-process.js'

const { running, smallDisk } = createBrokenStorage()
const buyer = privateKeyToAccount(generatePrivateKey())

/** One payment, settled while the data dir had room, its record attempted once the disk is full: the buyer's answer. */
async function payIntoFullDisk(svc: SvcProcess, filler: string, pauses: number) {
  const paid = payingFetch(svc, buyer)(`${svc.ready.seed.apis[0].gateway_url}/weather/paris`)
  await vi.waitFor(() => expect(svc.stderr().split('paused at settlement-record').length - 1).toBe(pauses), {
    timeout: 30_000,
    interval: 20,
  })
  fillDisk(filler)
  svc.child.kill('SIGUSR2')
  const response = await paid
  const body = await response.text()
  return { status: response.status, body, header: response.headers.get('payment-response') }
}

describe.skipIf(!isRoot)('a settlement whose record the full data dir cannot take', () => {
  test('the buyer gets the answer; the record is written when the disk has room, or at the next start', async () => {
    const { dataDir, filler } = smallDisk('48m')
    const svc = await startSeeded(running, dataDir, 'settlement-record')
    await fund(svc, [buyer])

    // The disk has room again while svc runs: the kept record is written, as delivered.
    const first = await payIntoFullDisk(svc, filler, 1)
    console.info(`storage-record-kept: the buyer got ${first.status} ${first.header ? '(paid)' : first.body}`)
    expect(first.status).toBe(200)
    const kept = decodePaymentResponseHeader(first.header!).transaction
    expect(svc.stderr()).toMatch(/is kept in memory until the data dir takes writes again: .*(SQLITE_FULL|full)/)
    rmSync(filler)
    await vi.waitFor(() => expect(svc.stderr()).toContain('every settlement kept in memory is recorded'), {
      timeout: 10_000,
      interval: 20,
    })
    expect((await allSettlements(svc)).filter((row) => row.transaction === kept)).toMatchObject([{ delivered: true }])

    // svc dies with the record still in memory: the next start finds the settlement from its journal row.
    const second = await payIntoFullDisk(svc, filler, 2)
    expect(second.status).toBe(200)
    const lost = decodePaymentResponseHeader(second.header!).transaction
    // Frozen first, so it cannot write the kept record once the disk has room; the room lets Anvil save the chain as
    // the watchdog stops it (a dump on a full disk keeps the last good copy, which may predate this payment).
    const anvilPid = Number(readFileSync(join(dataDir, 'anvil.pid'), 'utf8'))
    svc.child.kill('SIGSTOP')
    rmSync(filler)
    svc.child.kill('SIGKILL')
    await new Promise((resolve) => svc.child.once('exit', resolve))
    await vi.waitFor(() => expect(isProcessRunning(anvilPid)).toBe(false), { timeout: 10_000, interval: 20 })
    const { rows, onChain } = await restartAndReconcile(running, dataDir, [buyer])
    // Recorded as charged without the answer: the journal row cannot tell that the buyer got it.
    expect(rows.filter((row) => row.transaction === lost)).toMatchObject([{ delivered: false }])
    expect(new Set(rows.map((row) => row.transaction))).toEqual(new Set(onChain))
    expect(onChain).toHaveLength(2)
  }, 120_000)
})
