/**
 * Issue 35 A and B: svc stopped as terminals and service managers stop it, by a signal to its whole process group (a
 * terminal's Ctrl-C, a CI runner's cancel, `kill -INT -- -PGID`, systemd's `KillMode=control-group`, `docker stop`).
 * svc owns its Anvil's lifetime: Anvil (in a process group of its own) does not die of the signal, svc saves the chain
 * and stops it, and exits 0; the chain (its block number) and the ledger are there at the next start. `svc serve`
 * drains and hands the shared chain over as for a signal to its pid alone. Real processes, real Anvil, real SQLite and
 * PostgreSQL. Before the fix: `svc up` exited 13 with "the chain could not be saved on stop: fetch failed", or (the
 * demo seed after a payment) never exited; the shared chain's owner never exited.
 */
import { randomBytes } from 'node:crypto'
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, describe, expect, test, vi } from 'vitest'
import { isProcessRunning } from '../../core/os-process.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { ledger } from '../helpers/crash-at.js'
import { postgresAvailable, startPostgres } from '../helpers/postgres.js'
import { readSandboxPids } from '../helpers/processes.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { startSvcProcess } from '../helpers/svc-process.js'

const svcBin = fileURLToPath(new URL('../../bin/svc.js', import.meta.url))
const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const temp = mkdtempSync(join(tmpdir(), 'svc-group-signals-'))
/** Process groups a test started: whatever is left of them is killed. */
const groups: number[] = []
afterEach(() => {
  for (const pid of groups.splice(0))
    try {
      process.kill(-pid, 'SIGKILL')
    } catch {}
})
afterAll(() => rmSync(temp, { recursive: true, force: true }))

const blockNumber = (rpcUrl: string) => createPublicClient({ transport: http(rpcUrl) }).getBlockNumber()

/** Signals the process group `pid` leads and resolves with the exit code and how long the exit took. */
async function signalGroup(child: ChildProcess, signal: NodeJS.Signals) {
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const sent = performance.now()
  process.kill(-child.pid!, signal)
  // Bounded: a svc that does not exit fails the test here, not at vitest's timeout.
  const code = await Promise.race([exited, new Promise<'running'>((r) => setTimeout(() => r('running'), 15_000))])
  return { code, ms: performance.now() - sent }
}

/**
 * `svc up --no-tui` (what CI gets) in a process group of its own, as a terminal or a CI runner starts it; resolves once
 * it printed "Press Ctrl-C to stop." with the URLs it printed.
 */
async function startUpInGroup(dataDir: string, args: string[] = []) {
  const child = spawn(process.execPath, [svcBin, 'up', '--no-tui', '--port', '0', '--data-dir', dataDir, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  groups.push(child.pid!)
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      if (stdout.includes('Press Ctrl-C to stop.')) resolve()
    })
    child.once('exit', (code) => reject(new Error(`svc up exited with ${code} before it was ready: ${stderr}`)))
  })
  const url = (label: string) => new RegExp(`^  ${label}\\s+(\\S+)`, 'm').exec(stdout)?.[1] as string
  return {
    child,
    stderr: () => stderr,
    rpcUrl: url('RPC'),
    chainManagerUrl: url('chain manager'),
    seedApi: url('seed API'),
    usdc: url('USDC'),
  }
}

describe('svc up --no-tui: its process group signalled', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    // With SIGTERM, a twin chain too: its Anvil is svc's to stop as well.
    const twin = signal === 'SIGTERM'
    test(`${signal}${twin ? ' (with a twin chain)' : ''}: Anvil is not killed by it, the chain is saved, svc exits 0 within 5 s`, async () => {
      const dataDir = join(temp, `up-${signal}`)
      const svc = await startUpInGroup(dataDir, twin ? ['--twin', 'base-sepolia'] : [])
      const { anvil } = readSandboxPids(dataDir)
      const twinAnvil = twin ? Number(readFileSync(join(dataDir, 'anvil-base-sepolia.pid'), 'utf8')) : undefined
      const before = await blockNumber(svc.rpcUrl)
      expect(before).toBeGreaterThan(0n)

      const { code, ms } = await signalGroup(svc.child, signal)
      expect({ code, stderr: svc.stderr() }).toEqual({ code: 0, stderr: expect.stringContaining('svc: stopped') })
      expect(svc.stderr()).not.toContain('could not be saved')
      expect(ms).toBeLessThan(5_000)
      expect(isProcessRunning(anvil)).toBe(false)
      if (twinAnvil !== undefined) expect(isProcessRunning(twinAnvil)).toBe(false)

      const again = await startSvcProcess(['--data-dir', dataDir], process.env, { ephemeral: false })
      try {
        expect(again.stderr()).not.toContain('started a fresh chain')
        expect(await blockNumber(again.ready.rpc_url)).toBeGreaterThanOrEqual(before)
      } finally {
        expect(await again.stop()).toBe(0)
      }
    }, 60_000)

    test(`${signal} with the demo seed after one payment: svc exits 0 within 5 s, the chain and the ledger are kept`, async () => {
      const dataDir = join(temp, `seed-${signal}`)
      const svc = await startUpInGroup(dataDir, ['--seed', seedFile, '--auto-verify'])
      const buyer = privateKeyToAccount(generatePrivateKey())
      const funded = await fetch(`${svc.chainManagerUrl}/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: buyer.address }),
      })
      expect(funded.status).toBe(200)
      const network = 'eip155:845320402'
      const client = new x402Client().register(network, new ExactEvmScheme(buyer))
      client.setSpendControls({ allowedAssets: [{ network, asset: svc.usdc, maxAmountPerPayment: '1000000' }] })
      const paid = await wrapFetchWithPayment(localFetch, client)(`${svc.seedApi}/weather/paris`)
      expect(paid.status).toBe(200)
      const settlement = JSON.parse(atob(paid.headers.get('payment-response')!)) as { transaction: string }
      const before = await blockNumber(svc.rpcUrl)

      const { code, ms } = await signalGroup(svc.child, signal)
      expect({ code, stderr: svc.stderr() }).toEqual({ code: 0, stderr: expect.stringContaining('svc: stopped') })
      expect(svc.stderr()).not.toContain('could not be saved')
      expect(ms).toBeLessThan(5_000)

      const again = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, {
        ephemeral: false,
      })
      try {
        expect(await blockNumber(again.ready.rpc_url)).toBeGreaterThanOrEqual(before)
        const receipt = await createPublicClient({ transport: http(again.ready.rpc_url) }).getTransactionReceipt({
          hash: settlement.transaction as `0x${string}`,
        })
        expect(receipt.status).toBe('success')
        expect(await ledger(again)).toEqual([
          expect.objectContaining({ transaction: settlement.transaction, old_chain: false }),
        ])
      } finally {
        expect(await again.stop()).toBe(0)
      }
    }, 60_000)
  }
})

test('an Anvil that dies as svc is signalled is not started again: svc exits 0 within 5 s, no Anvil left', async () => {
  // What the process-group signal did to Anvil before svc gave it a group of its own (and what an OOM kill may do):
  // svc restarted the chain during its stop, stopped the dead Anvil, and ran on for ever with the new one.
  const dataDir = join(temp, 'anvil-dies')
  const svc = await startUpInGroup(dataDir, ['--seed', seedFile])
  const { anvil } = readSandboxPids(dataDir)
  process.kill(anvil, 'SIGKILL')
  const { code, ms } = await signalGroup(svc.child, 'SIGINT')
  expect({ code, stderr: svc.stderr() }).toEqual({ code: 0, stderr: expect.stringContaining('svc: stopped') })
  expect(ms).toBeLessThan(5_000)
  expect(svc.stderr()).not.toContain('started a fresh chain')
  expect(existsSync(join(dataDir, 'anvil.pid'))).toBe(false)
}, 60_000)

describe('svc serve: its process group sent SIGTERM (systemd, docker stop, a Kubernetes pod)', () => {
  const secrets = () => {
    const dir = mkdtempSync(join(temp, 'secrets-'))
    const files = { jwt: join(dir, 'jwt.key'), wallet: join(dir, 'wallet.key') }
    writeFileSync(files.jwt, `${randomBytes(32).toString('hex')}\n`)
    writeFileSync(files.wallet, `${randomBytes(32).toString('hex')}\n`)
    return ['--jwt-secret-file', files.jwt, '--wallet-key-file', files.wallet]
  }

  test('--sandbox-chain local on SQLite: drains, saves the chain, exits 0; the chain is there at the next start', async () => {
    const dataDir = join(temp, 'serve-local')
    const args = ['--data-dir', dataDir, ...secrets(), '--sandbox-chain', 'local']
    const svc = await startServeProcess(args, process.env, { detached: true })
    groups.push(svc.child.pid!)
    const before = await blockNumber(svc.ready.rpc_url)

    const { code, ms } = await signalGroup(svc.child, 'SIGTERM')
    expect({ code, stderr: svc.stderr() }).toEqual({ code: 0, stderr: expect.stringContaining('svc: stopped') })
    expect(svc.stderr()).not.toContain('could not be saved')
    expect(ms).toBeLessThan(5_000)

    const again = await startServeProcess(args)
    try {
      expect(await blockNumber(again.ready.rpc_url)).toBeGreaterThanOrEqual(before)
    } finally {
      expect(await again.stop()).toBe(0)
    }
  }, 60_000)

  test.skipIf(!postgresAvailable() && !process.env.CI)(
    '--sandbox-chain shared on PostgreSQL: the chain owner drains, hands the chain over and exits 0',
    async () => {
      const postgres = await startPostgres()
      const started: ServeProcess[] = []
      try {
        const databaseUrl = await postgres.createDatabase()
        const files = secrets()
        const serve = async (name: string) => {
          const svc = await startServeProcess(
            [
              ...['--data-dir', join(temp, `shared-${name}`), '--database-url', databaseUrl],
              ...[...files, '--sandbox-chain', 'shared', '--auto-verify'],
            ],
            process.env,
            { detached: true },
          )
          groups.push(svc.child.pid!)
          started.push(svc)
          return svc
        }
        // One at a time: the first owns the chain, the second is its standby.
        const owner = await serve('a')
        const standby = await serve('b')
        expect([owner.ready.chain_owner, standby.ready.chain_owner]).toEqual([true, false])
        const { anvil } = readSandboxPids(join(temp, 'shared-a'))
        const readyz = async () =>
          (await (await fetchFrom('127.0.0.1')(`http://127.0.0.1:${standby.ready.port}/readyz`)).json()) as {
            chain?: string
          }
        expect((await readyz()).chain).toBe('remote')

        const { code, ms } = await signalGroup(owner.child, 'SIGTERM')
        expect({ code, stderr: owner.stderr() }).toEqual({
          code: 0,
          stderr: expect.stringContaining('svc: stopped'),
        })
        expect(ms).toBeLessThan(10_000)
        expect(isProcessRunning(anvil)).toBe(false)
        // The standby takes the chain over.
        await vi.waitFor(async () => expect((await readyz()).chain).toBe('ok'), { timeout: 20_000, interval: 100 })
      } finally {
        for (const svc of started) await svc.stop()
        await postgres.stop()
      }
    },
    90_000,
  )
})
