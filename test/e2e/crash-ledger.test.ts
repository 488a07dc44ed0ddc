/**
 * `kill -9` of `svc up` under paid load, then a restart on the same data dir: every settlement that reached the chain
 * is in the ledger exactly once, and every buyer charged without getting the answer is recorded as such. 8 buyers pay
 * the demo API with the official `@x402/fetch` client; svc is killed mid-load, three times.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http, parseAbiItem, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { killUnderLoad } from '../helpers/kill-under-load.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'

const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-ledger-'))
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const buyers = Array.from({ length: 8 }, () => privateKeyToAccount(generatePrivateKey()))
const cycles = 3
/** Paid requests the ledger holds before svc is killed in a cycle (the load goes on while it dies). */
const paymentsPerCycle = 60

const start = async () => {
  const svc = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, { ephemeral: false })
  running.push(svc)
  return svc
}

/** The settlements of the demo seller, every page, through the Sandbox control plane as the seed's account. */
async function ledger(svc: SvcProcess) {
  const { email, password } = svc.ready.seed
  const login = await localFetch(`${svc.ready.sandbox_control_url}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  const { token } = (await login.json()) as { token: string }
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

describe('kill -9 of svc under paid load', () => {
  test(`${cycles} crashes under 8 buyers: the chain and the ledger agree, every charge without an answer is recorded`, async () => {
    const first = await start()
    const { network, usdc } = first.ready
    for (const buyer of buyers)
      await fetch(`${first.ready.chain_manager_url}/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: buyer.address }),
      })

    const payingFetch = (buyer: (typeof buyers)[number]) => {
      const client = new x402Client().register(network, new ExactEvmScheme(buyer))
      client.setSpendControls({ allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: '1000000' }] })
      return wrapFetchWithPayment(localFetch, client)
    }
    const run = await killUnderLoad({
      svc: first,
      restart: start,
      cycles,
      paymentsPerCycle,
      buyersOf: async (svc) =>
        buyers.map((buyer) => {
          const pay = payingFetch(buyer)
          return () => pay(`${svc.ready.seed.apis[0].gateway_url}/weather/paris`)
        }),
    })
    const { svc, answered, failures } = run

    // The chain: every EIP-3009 authorization the buyers' payments used.
    const client = createPublicClient({ transport: http(svc.ready.rpc_url) })
    const used = await client.getLogs({
      address: usdc as Address,
      event: parseAbiItem('event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)'),
      fromBlock: 0n,
    })
    const onChain = used
      .filter((log) => buyers.some((buyer) => buyer.address === log.args.authorizer))
      .map((log) => log.transactionHash)
    const rows = await ledger(svc)
    const recorded = rows.map((row) => row.transaction)

    expect(new Set(onChain).size).toBe(onChain.length)
    // Every settlement on the chain is in the ledger, once; the ledger holds nothing the chain does not.
    expect(recorded.length).toBe(new Set(recorded).size)
    expect(new Set(recorded)).toEqual(new Set(onChain))
    // Every answer a buyer got was recorded; every charge a buyer got no answer for is recorded as such.
    for (const transaction of answered) expect(recorded).toContain(transaction)
    const unanswered = rows.filter((row) => !answered.has(row.transaction))
    expect(unanswered.every((row) => !row.delivered)).toBe(true)
    expect(answered.size).toBeGreaterThanOrEqual(cycles * paymentsPerCycle)
    console.info(
      `crash-ledger: ${onChain.length} settlements on chain, ${rows.length} in the ledger, ${answered.size} answered, ${unanswered.length} charged without an answer, ${failures} failed requests`,
    )
  })
})
