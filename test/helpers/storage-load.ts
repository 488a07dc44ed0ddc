/**
 * Paid load on `svc up` while its data dir stops taking writes (issue 21 item 4): buyers pay the demo API with the
 * official `@x402/fetch` client, and every answer is kept (status, error, transaction) for the test to judge. Also
 * the broken storage itself (a small tmpfs that fills, immutable files) and the teardown that repairs it, and the
 * restart that compares the ledger with the chain.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { decodePaymentResponseHeader, wrapFetchWithPayment } from '@x402/fetch'
import type { Address, LocalAccount } from 'viem'
import { afterAll, expect, vi } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { post, startSeeded, usedOnChain } from './crash-at.js'
import type { SvcProcess } from './svc-process.js'

/** Root on Linux, where tmpfs mounts and `chattr` work. The tests that break a disk are skipped otherwise. */
export const isRoot = process.getuid?.() === 0 && process.platform === 'linux'

/** Writes zeros to `file` until the disk is full. */
export function fillDisk(file: string) {
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

/** Sets or clears the immutable flag on `dir` and everything in it. */
export const chattr = (flag: '+i' | '-i', dir: string) => execFileSync('chattr', ['-R', flag, dir])

/**
 * The storage a test file breaks, and its teardown (registered here with `afterAll`): the svc processes in `running`
 * are stopped first, then every disk is repaired and removed, newest first.
 */
export function createBrokenStorage() {
  const running: SvcProcess[] = []
  const cleanups: (() => void)[] = []
  afterAll(async () => {
    for (const svc of running) await svc.stop()
    for (const cleanup of cleanups.reverse()) cleanup()
  })
  return {
    running,
    /** A tmpfs of `size` (mount's `-o size=`): `dataDir` in it, and `filler`, the file `fillDisk` fills it with. */
    smallDisk(size: string) {
      const mount = mkdtempSync(join(tmpdir(), 'svc-disk-'))
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', mount])
      cleanups.push(() => {
        execFileSync('umount', [mount])
        rmSync(mount, { recursive: true, force: true })
      })
      const dataDir = join(mount, 'data')
      mkdirSync(dataDir)
      return { mount, dataDir, filler: join(mount, 'filler') }
    },
    /** A data dir whose files the test may make immutable; made mutable again before it is removed. */
    immutableDir() {
      const dataDir = mkdtempSync(join(tmpdir(), 'svc-immutable-'))
      cleanups.push(() => {
        chattr('-i', dataDir)
        rmSync(dataDir, { recursive: true, force: true })
      })
      return dataDir
    },
  }
}

/**
 * svc started again on `dataDir` (the demo seed): its ledger (every settlement) and the EIP-3009 authorizations
 * `buyers` used on its chain, for the test to compare.
 */
export async function restartAndReconcile(running: SvcProcess[], dataDir: string, buyers: { address: string }[]) {
  const svc = await startSeeded(running, dataDir)
  const rows = await allSettlements(svc)
  const onChain = (await Promise.all(buyers.map((buyer) => usedOnChain(svc, buyer.address as Address)))).flat()
  return { svc, rows, onChain }
}

export type Answer = { status: number; error?: string; transaction?: string; retryAfter?: string | null }

/** A fetch that pays svc's sandbox USDC as `buyer`, through `@x402/fetch`. */
export function payingFetch(svc: SvcProcess, buyer: LocalAccount) {
  const { network, usdc } = svc.ready
  const client = new x402Client().register(network, new ExactEvmScheme(buyer))
  client.setSpendControls({ allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: '1000000' }] })
  return wrapFetchWithPayment(localFetch, client)
}

/** Funds every buyer from svc's faucet. */
export async function fund(svc: SvcProcess, buyers: LocalAccount[]) {
  for (const buyer of buyers)
    expect((await post(`${svc.ready.chain_manager_url}/faucet`, { address: buyer.address })).status).toBe(200)
}

/** Buyers paying `url` one request after another each, until `stop()`; `answers` grows as they are answered. */
export function startLoad(svc: SvcProcess, buyers: LocalAccount[], url: string) {
  const answers: Answer[] = []
  let stopped = false
  const loops = buyers.map(async (buyer) => {
    const pay = payingFetch(svc, buyer)
    while (!stopped) {
      let response: Response
      try {
        response = await pay(url)
      } catch (error) {
        // No answer at all: svc died (the test says how), or is going.
        answers.push({ status: 0, error: String((error as Error).cause ?? error) })
        if (svc.child.exitCode !== null || svc.child.signalCode !== null) return
        continue
      }
      const header = response.headers.get('payment-response')
      if (response.status === 200 && header) {
        await response.arrayBuffer()
        answers.push({ status: 200, transaction: decodePaymentResponseHeader(header).transaction })
      } else {
        const text = await response.text()
        let error = text
        try {
          error = (JSON.parse(text) as { error?: string }).error ?? text
        } catch {
          // Not JSON: kept as it is, and the test says so.
        }
        answers.push({ status: response.status, error, retryAfter: response.headers.get('retry-after') })
      }
    }
  })
  return {
    answers,
    /** Waits until `count` answers after the first `from` satisfy `which`. */
    async until(from: number, which: (answer: Answer) => boolean, count: number, timeout = 60_000) {
      await vi.waitFor(() => expect(answers.slice(from).filter(which).length).toBeGreaterThanOrEqual(count), {
        timeout,
        interval: 20,
      })
    },
    async stop() {
      stopped = true
      await Promise.all(loops)
    },
  }
}

/** The seed account's JWT on the Sandbox control plane. */
export async function login(svc: SvcProcess) {
  const { email, password } = svc.ready.seed
  const response = await post(`${svc.ready.sandbox_control_url}/auth/login`, { email, password })
  return ((await response.json()) as { token: string }).token
}

/** A control-plane write (a new API) as the seed's account. */
export function createApi(svc: SvcProcess, token: string, slug: string, upstream = 'http://127.0.0.1:9') {
  return localFetch(`${svc.ready.sandbox_control_url}/apis`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      name: slug,
      slug,
      upstream_base_url: upstream,
      pay_to_mode: 'user_wallet',
      pay_to_address: '0x000000000000000000000000000000000000dEaD',
    }),
  })
}

/** Every settlement of the seed's account (all pages), through the Sandbox control plane. */
export async function allSettlements(svc: SvcProcess) {
  const token = await login(svc)
  const rows: { transaction: string; payer: string; delivered: boolean }[] = []
  let cursor: string | null = null
  do {
    const query: string = `limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`
    const response = await localFetch(`${svc.ready.sandbox_control_url}/settlements?${query}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    const page = (await response.json()) as { settlements: typeof rows; next_cursor: string | null }
    if (!response.ok) throw new Error(`GET /settlements: ${response.status} ${JSON.stringify(page)}`)
    rows.push(...page.settlements)
    cursor = page.next_cursor
  } while (cursor)
  return rows
}
