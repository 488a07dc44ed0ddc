/**
 * `kill -9` of `svc up` under Permit2 load (exact via Permit2 and upto), then a restart on the same data dir: every
 * Permit2 settlement that reached the chain is in the ledger exactly once, for the amount it moved, and every buyer
 * charged without getting the answer is recorded as such. 6 buyers pay with the official `@x402/fetch` client
 * (half exact via Permit2, half upto charged what a metered upstream says); svc is killed mid-load, twice.
 * test/e2e/crash-ledger.test.ts does the same for EIP-3009 payments.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { x402Client } from '@x402/core/client'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { UptoEvmScheme } from '@x402/evm/upto/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { createPublicClient, http, parseAbiItem, type Address } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../sdk/local-fetch.js'
import { startUpstream } from '../server/gateway/helpers.js'
import { killUnderLoad } from '../helpers/kill-under-load.js'
import { startSvcProcess, type SvcProcess } from '../helpers/svc-process.js'

const seedFile = fileURLToPath(new URL('../../fixtures/demo-seed.yaml', import.meta.url))
const dataDir = mkdtempSync(join(tmpdir(), 'svc-crash-permit2-'))
const running: SvcProcess[] = []
let upstream: Awaited<ReturnType<typeof startUpstream>> | undefined
afterAll(async () => {
  for (const svc of running) await svc.stop()
  await upstream?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

const buyers = Array.from({ length: 6 }, () => privateKeyToAccount(generatePrivateKey()))
const payTo = privateKeyToAccount(generatePrivateKey()).address
const cycles = 2
/** Paid requests answered before svc is killed in a cycle (the load goes on while it dies). */
const paymentsPerCycle = 30

const start = async () => {
  const svc = await startSvcProcess(['--data-dir', dataDir, '--seed', seedFile], process.env, { ephemeral: false })
  running.push(svc)
  return svc
}

/** A call to the Sandbox control plane as the seed's account. */
async function control(svc: SvcProcess, path: string, body?: unknown): Promise<any> {
  const { email, password } = svc.ready.seed
  const base = svc.ready.sandbox_control_url
  const login = await localFetch(`${base}/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
  })
  const { token } = (await login.json()) as { token: string }
  const response = await localFetch(`${base}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = (await response.json()) as any
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`)
  return answer
}

/** The settlements of the metered API, every page. */
async function ledger(svc: SvcProcess, apiId: string) {
  const rows: { transaction: string; amount: string; delivered: boolean; api_id: string }[] = []
  let cursor: string | null = null
  do {
    const page: { settlements: typeof rows; next_cursor: string | null } = await control(
      svc,
      `/settlements?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    )
    rows.push(...page.settlements)
    cursor = page.next_cursor
  } while (cursor)
  return rows.filter((row) => row.api_id === apiId)
}

describe('kill -9 of svc under Permit2 load', () => {
  test(`${cycles} crashes under 6 buyers paying exact via Permit2 and upto: the chain and the ledger agree`, async () => {
    upstream = await startUpstream()
    const first = await start()
    const { network, usdc } = first.ready
    const api = await control(first, '/apis', {
      name: 'Metered',
      slug: 'metered',
      upstream_base_url: upstream.url,
      pay_to_mode: 'user_wallet',
      pay_to_address: payTo,
    })
    const schemas = { request_schema: { type: 'object' }, response_schema: { type: 'object' } }
    const accept = { scheme: 'exact', network, asset: usdc, max_timeout_seconds: 300 }
    await control(first, `/apis/${api.id}/endpoints`, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [{ ...accept, amount: '10000', extra: { assetTransferMethod: 'permit2' } }],
      ...schemas,
    })
    await control(first, `/apis/${api.id}/endpoints`, {
      method: 'GET',
      path_pattern: '/metered/{amount}',
      accepts: [{ ...accept, scheme: 'upto', amount: '100000' }],
      ...schemas,
    })
    // Four buyers approved Permit2; the last two did not and sign an EIP-2612 permit (the proxies' settleWithPermit).
    for (const [index, buyer] of buyers.entries())
      await fetch(`${first.ready.chain_manager_url}/faucet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ address: buyer.address, approve_permit2: index < 4 }),
      })

    const run = await killUnderLoad({
      svc: first,
      restart: start,
      cycles,
      paymentsPerCycle,
      buyersOf: async (svc) => {
        const { gateway_url: gateway } = await control(svc, `/apis/${api.id}`)
        return buyers.map((buyer, index) => {
          const client = new x402Client()
            .register(network, new ExactEvmScheme(buyer, { rpcUrl: svc.ready.rpc_url }))
            .register(network, new UptoEvmScheme(buyer, { rpcUrl: svc.ready.rpc_url }))
          client.setSpendControls({ allowedAssets: [{ network, asset: usdc, maxAmountPerPayment: '1000000' }] })
          const pay = wrapFetchWithPayment(localFetch, client)
          return (request) =>
            pay(
              index % 2 === 0
                ? `${gateway}/weather/paris`
                : `${gateway}/metered/${1_000 + index * 100 + (request % 50)}`,
            )
        })
      },
    })
    const { svc, answered, failures } = run

    // The chain: every USDC transfer from the buyers to the seller (one per Permit2 settlement), with its amount.
    const client = createPublicClient({ transport: http(svc.ready.rpc_url) })
    const transfers = await client.getLogs({
      address: usdc as Address,
      event: parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)'),
      args: { to: payTo },
      fromBlock: 0n,
    })
    const onChain = new Map(
      transfers
        .filter((log) => buyers.some((buyer) => buyer.address === log.args.from))
        .map((log) => [log.transactionHash, String(log.args.value)]),
    )
    const rows = await ledger(svc, api.id)

    expect(onChain.size).toBe(transfers.length)
    // The buyers without an approval paid too (through settleWithPermit), with both schemes.
    for (const buyer of buyers.slice(4)) expect(transfers.some((log) => log.args.from === buyer.address)).toBe(true)
    // Every settlement on the chain is in the ledger, once, for the amount it moved; the ledger holds nothing else.
    expect(rows.length).toBe(new Set(rows.map((row) => row.transaction)).size)
    expect(new Map(rows.map((row) => [row.transaction, row.amount]))).toEqual(onChain)
    // Every answer a buyer got was recorded; every charge a buyer got no answer for is recorded as such.
    for (const transaction of answered) expect(onChain.has(transaction as `0x${string}`)).toBe(true)
    const unanswered = rows.filter((row) => !answered.has(row.transaction))
    expect(unanswered.every((row) => !row.delivered)).toBe(true)
    expect(answered.size).toBeGreaterThanOrEqual(cycles * paymentsPerCycle)
    console.info(
      `crash-ledger-permit2: ${onChain.size} settlements on chain, ${rows.length} in the ledger, ${answered.size} answered, ${unanswered.length} charged without an answer, ${failures} failed requests`,
    )
  })
})
