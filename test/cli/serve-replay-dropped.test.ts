/**
 * A replayed payment whose settlement was sent but never reached the chain (issue 35 item 7c), with real processes:
 * `svc serve` on PostgreSQL with its Sandbox chain sends a settlement to an Anvil that is stopped (SIGSTOP: the
 * transaction is sent, never received), and dies (SIGKILL, its Anvil too) holding the payment's journal row
 * `settling`. The next `svc serve` on the same data dir reloads the chain from its save, which predates the payment.
 * The same payment sent again (a load balancer's replay) is paid within seconds, once; not 503 until its
 * validBefore (minutes). The ledger equals the chain.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { type Address, createPublicClient, erc20Abi, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../helpers/serve-process.js'
import { signUpServeSeller, type ServeSeller } from '../helpers/serve-seller.js'

const runs = postgresAvailable() || Boolean(process.env.CI)
const dir = mkdtempSync(join(tmpdir(), 'svc-serve-replay-dropped-'))
const adminFile = join(dir, 'admin.token')
writeFileSync(adminFile, `${randomBytes(32).toString('hex')}\n`)
const fetchLocal = fetchFrom('127.0.0.1')
const buyer = privateKeyToAccount(generatePrivateKey())

/** The upstream on 127.0.0.3 (--allow-upstream): answers at once, or when opened while held. */
let held: (() => void)[] | undefined
let arrived = () => {}
const upstream: Server = createServer((req, res) => {
  const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url }))
  if (!held) return answer()
  held.push(answer)
  arrived()
})

let postgres: TestPostgres
let databaseUrl: string
let seller: ServeSeller
const started: ServeProcess[] = []
/** Processes this file stopped with SIGSTOP, killed at the end whatever happens. */
const stopped: number[] = []

const serve = async () => {
  const svc = await startServeProcess([
    ...['--data-dir', join(dir, 'data'), '--database-url', databaseUrl, '--platform-domain', 'pay.test'],
    ...['--allow-upstream', '127.0.0.3/32', '--auto-verify', '--admin-token-file', adminFile],
  ])
  started.push(svc)
  return svc
}
const sandbox = (svc: ServeProcess) => svc.ready.sandbox_control_url as string
const gateway = (svc: ServeProcess) => `http://weather.${svc.ready.sandbox_platform_domain}:${svc.ready.port}/forecast`
let db: pg.Pool
const journalRows = async () =>
  (await db.query<{ state: string; owner: string }>('select state, owner from settlement_journal')).rows

/** The pids of `pid`'s descendants named `name` (svc's Anvil). */
function descendantsNamed(pid: number, name: string): number[] {
  const parents = new Map<number, number>()
  const names = new Map<number, string>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close))
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]))
    } catch {}
  }
  const under = (child: number): boolean => {
    for (let at = parents.get(child); at !== undefined && at > 1; at = parents.get(at)) if (at === pid) return true
    return false
  }
  return [...names].filter(([child, comm]) => comm === name && under(child)).map(([child]) => child)
}

beforeAll(async () => {
  if (!runs) return
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  postgres = await startPostgres()
  databaseUrl = await postgres.createDatabase()
  db = new pg.Pool({ connectionString: databaseUrl, max: 1 })
  // The first process: the seller, its API and the buyer's funds, saved with the chain when it stops.
  const first = await serve()
  seller = await signUpServeSeller(fetchLocal, first, upstream)
  const accept = { scheme: 'exact', network: first.ready.network, asset: first.ready.usdc, amount: '10000' }
  expect((await seller.addEndpoint(first, '/forecast', accept)).status).toBe(201)
  expect((await seller.post(`${sandbox(first)}/dev/faucet`, { address: buyer.address })).status).toBe(200)
  expect(await first.stop()).toBe(0)
}, 120_000)
afterAll(async () => {
  for (const pid of stopped)
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  for (const svc of started) await svc.stop()
  await db?.end()
  await postgres?.stop()
  upstream.close()
  rmSync(dir, { recursive: true, force: true })
})

describe.skipIf(!runs)('a replayed payment whose settlement was sent and never reached the chain', () => {
  test('is paid within seconds, once, not 503 until its validBefore; the ledger equals the chain', async () => {
    const dying = await serve()
    const [anvil] = descendantsNamed(dying.child.pid!, 'anvil')
    expect(anvil).toBeDefined()

    // The buyer signs one payment (validBefore minutes away), sent once to the process that will die.
    const probe = await fetchLocal(gateway(dying))
    expect(probe.status).toBe(402)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    const client = new x402Client().register(dying.ready.network, new ExactEvmScheme(buyer))
    client.setSpendControls({
      allowedAssets: [{ network: dying.ready.network, asset: dying.ready.usdc, maxAmountPerPayment: '1000000' }],
    })
    const signature = encodePaymentSignatureHeader(await client.createPaymentPayload(required))
    const pay = (svc: ServeProcess) => fetchLocal(gateway(svc), { headers: { 'payment-signature': signature } })

    // Verified; while the upstream answers, the chain stops: the settlement is sent to an Anvil that never reads it.
    held = []
    const upstreamReached = new Promise<void>((resolve) => (arrived = resolve))
    const first = pay(dying).catch(() => undefined)
    await upstreamReached
    process.kill(anvil!, 'SIGSTOP')
    stopped.push(anvil!)
    for (const answer of held.splice(0)) answer()
    held = undefined
    await vi.waitFor(async () => expect((await journalRows()).map((row) => row.state)).toEqual(['settling']), {
      timeout: 10_000,
      interval: 20,
    })
    dying.child.kill('SIGKILL')
    process.kill(anvil!, 'SIGKILL')
    await dying.exited
    await first

    // The next process reloads the chain saved before the payment: nothing of it is there.
    const next = await serve()
    const chain = createPublicClient({ transport: http(next.ready.rpc_url) })
    const usdcOf = (address: Address) =>
      chain.readContract({ address: next.ready.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [address] })
    const before = await usdcOf(buyer.address)
    expect(before).toBeGreaterThan(0n)
    expect(await journalRows()).toHaveLength(1)

    // The load balancer's replay: answered 200 within seconds (a 503 with Retry-After meanwhile), paid once.
    const sentAt = Date.now()
    const statuses: number[] = []
    const paid = await vi.waitFor(
      async () => {
        const answer = await pay(next)
        statuses.push(answer.status)
        if (answer.status !== 200) await answer.arrayBuffer()
        expect(answer.status).toBe(200)
        return answer
      },
      { timeout: 20_000, interval: 500 },
    )
    expect(await paid.json()).toEqual({ ok: '/forecast' })
    const waited = Date.now() - sentAt
    console.info(`replay of a dropped settlement: 200 after ${waited} ms (${statuses.join(', ')})`)
    expect(new Set(statuses.slice(0, -1))).not.toContain(402)

    // The ledger equals the chain: one settlement, its transaction on the chain, the buyer charged once.
    const { settlements } = (await (
      await fetchLocal(`${sandbox(next)}/settlements`, { headers: seller.headers })
    ).json()) as { settlements: { transaction: string; amount: string; payer: string }[] }
    expect(settlements).toHaveLength(1)
    expect(settlements[0]).toMatchObject({ amount: '10000', payer: buyer.address })
    const receipt = await chain.getTransactionReceipt({ hash: settlements[0]!.transaction as Hex })
    expect(receipt.status).toBe('success')
    expect(await usdcOf(buyer.address)).toBe(before - 10000n)
    await vi.waitFor(async () => expect(await journalRows()).toEqual([]))
    // Sent once more, it is not paid again.
    const again = await pay(next)
    expect(again.status).not.toBe(200)
    await again.arrayBuffer()
    expect(await usdcOf(buyer.address)).toBe(before - 10000n)
  }, 120_000)
})
