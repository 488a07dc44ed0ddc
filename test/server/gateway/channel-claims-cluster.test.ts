/**
 * Production payment channels under a cluster: three real `svc serve` processes on one real PostgreSQL database, their
 * facilitator an external one (the Sandbox chain services of this test process play the real network and its
 * facilitator, as in channel-claim-external-crash.test.ts). Every process that took a voucher runs a channel manager
 * for the receiver, claiming every second: buyers pay through all three, and the receiver's vouchers are claimed and
 * settled once. Each claim and settle svc records is one transaction on the chain, recorded once, with the amount the
 * chain moved; svc sends no claim or settle that moves nothing (an empty transaction, or one the contract refuses), and
 * the claims and settles it records add up to what the buyers paid.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { x402Client } from '@x402/core/client'
import { toClientEvmSigner } from '@x402/evm'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { decodeFunctionData, type Hex, parseEventLogs } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { postgresAvailable, startPostgres, type TestPostgres } from '../../helpers/postgres.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../../helpers/serve-process.js'
import { newAccount } from '../../helpers/payments.js'
import { channelIdOf, channelOnChainAt } from './batch-kit.js'

// Where PostgreSQL is missing outside CI the file is skipped, as test/cli/serve-postgres.test.ts is.
const runs = postgresAvailable() || Boolean(process.env.CI)

const dir = mkdtempSync(join(tmpdir(), 'svc-claims-cluster-'))
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(walletFile, `${randomBytes(32).toString('hex')}\n`)
const direct = fetchFrom('127.0.0.1')
const processes: ServeProcess[] = []
const price = 1_000n
const buyers = 4
const paymentsEach = 12

let postgres: TestPostgres
let services: ChainServices
let upstreamUrl: string
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url })),
)

beforeAll(async () => {
  if (!runs) return
  ;[postgres, services] = await Promise.all([startPostgres(), startChainServices()])
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
  const databaseUrl = await postgres.createDatabase()
  // One at a time: the first migrates the database.
  for (const name of ['a', 'b', 'c'])
    processes.push(
      await startServeProcess([
        ...['--sandbox-chain', 'none', '--data-dir', join(dir, name), '--database-url', databaseUrl],
        ...['--platform-domain', 'pay.test', '--jwt-secret-file', jwtFile, '--wallet-key-file', walletFile],
        ...['--auto-verify', '--facilitator-url', services.facilitatorUrl, '--allow-upstream', '127.0.0.3'],
        ...['--rpc', `${services.sandboxChain.network}=${services.rpcUrl}`],
      ]),
    )
}, 120_000)
afterAll(async () => {
  await Promise.all(processes.map((svc) => svc.stop()))
  upstream.close()
  await services?.stop()
  await postgres?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const call = async (svc: ServeProcess, method: string, path: string, token?: string, body?: unknown) => {
  const response = await direct(`${svc.ready.control_url}${path}`, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  return { status: response.status, body: (await response.json()) as any }
}

type Recorded = { id: string; kind: string; amount: string; transaction: string }

test.runIf(runs)(
  "three svc serve processes' channel managers claim and settle a receiver's vouchers once: each claim and settle recorded once, as the chain has it, none empty",
  async () => {
    const [a] = processes as [ServeProcess, ServeProcess, ServeProcess]
    const signup = await call(a, 'POST', '/auth/signup', undefined, {
      email: 'channels@pay.test',
      password: 'a-long-password',
    })
    const token = signup.body.token as string
    const receiver = newAccount().address
    const created = await call(a, 'POST', '/apis', token, {
      name: 'Channels',
      slug: 'channels',
      upstream_base_url: upstreamUrl,
      pay_to_mode: 'user_wallet',
      pay_to_address: receiver,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const { name, version, address: usdc } = services.sandboxChain.usdc
    const endpoint = await call(a, 'POST', `/apis/${created.body.id}/endpoints`, token, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [
        {
          scheme: 'batch-settlement',
          network: services.sandboxChain.network,
          asset: usdc,
          amount: price.toString(),
          extra: {
            minDeposit: (2n * BigInt(paymentsEach) * price).toString(),
            claimIntervalSeconds: 1,
            settleIntervalSeconds: 1,
            name,
            version,
          },
        },
      ],
      request_schema: null,
      response_schema: null,
    })
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)
    const client = services.sandboxChain.client
    const firstBlock = await client.getBlockNumber()

    // Each buyer pays through the three processes in turn, a voucher every ~150 ms, all buyers at once: every process
    // runs a channel manager for the receiver, each claiming every second while vouchers come in.
    const channels = await Promise.all(
      Array.from({ length: buyers }, async (_, index) => {
        const buyer = newAccount()
        await services.manager.fund(buyer.address)
        const scheme = new BatchClient(toClientEvmSigner(buyer, client as never))
        const pay = wrapFetchWithPayment(
          direct,
          new x402Client()
            .register(services.sandboxChain.network as `${string}:${string}`, scheme)
            .setSpendControls({ allowedAssets: true }),
        )
        let channelId: Hex | undefined
        for (let i = 0; i < paymentsEach; i++) {
          const svc = processes[(index + i) % processes.length]!
          const response = await pay(`http://channels.pay.test:${svc.ready.port}/weather/oslo`)
          expect(response.status, await response.text()).toBe(200)
          channelId ??= channelIdOf(response)
          await new Promise((resolve) => setTimeout(resolve, 150))
        }
        return channelId!.toLowerCase() as Hex
      }),
    )

    const paid = BigInt(buyers * paymentsEach) * price
    // Everything claimed on chain, and svc's records settled (each channel's view: settled = spent).
    const shown = async (channelId: string) => (await call(a, 'GET', `/channels/${channelId}`, token)).body
    await expect
      .poll(
        async () => {
          const views = await Promise.all(channels.map(shown))
          return views.every((view) => view.channel?.settled === (BigInt(paymentsEach) * price).toString())
        },
        { timeout: 60_000, interval: 500 },
      )
      .toBe(true)
    for (const channelId of channels)
      expect(await channelOnChainAt(client, channelId)).toMatchObject({ totalClaimed: BigInt(paymentsEach) * price })
    // The managers' next rounds come and go: nothing more is sent or recorded.
    await new Promise((resolve) => setTimeout(resolve, 3_000))

    // svc's records of the receiver's claims and settles (each channel's view lists them: the union, by id).
    const recorded = new Map<string, Recorded>()
    for (const channelId of channels)
      for (const entry of (await shown(channelId)).transactions as Recorded[])
        if (entry.kind === 'claim' || entry.kind === 'settle') recorded.set(entry.id, entry)
    const records = [...recorded.values()]

    // The chain's: every transaction the facilitator sent to the contract since the API was made, with its logs.
    const sent: { hash: Hex; fn: string; status: string; claimed: bigint; settled: bigint; logs: number }[] = []
    const lastBlock = await client.getBlockNumber()
    for (let number = firstBlock + 1n; number <= lastBlock; number++) {
      const block = await client.getBlock({ blockNumber: number, includeTransactions: true })
      for (const tx of block.transactions) {
        if (tx.to?.toLowerCase() !== batchSettlementAddresses.settlement.toLowerCase()) continue
        const fn = decodeFunctionData({ abi: x402BatchSettlementAbi, data: tx.input }).functionName
        if (fn !== 'claim' && fn !== 'claimWithSignature' && fn !== 'settle') continue
        const receipt = await client.getTransactionReceipt({ hash: tx.hash })
        const logs = parseEventLogs({ abi: x402BatchSettlementAbi, logs: receipt.logs })
        let claimed = 0n
        let settled = 0n
        for (const log of logs) {
          if (log.eventName === 'Claimed') claimed += (log.args as { amount: bigint }).amount
          if (log.eventName === 'Settled') settled += (log.args as { amount: bigint }).amount
        }
        sent.push({ hash: tx.hash, fn, status: receipt.status, claimed, settled, logs: logs.length })
      }
    }
    const failures = processes.flatMap((svc) =>
      svc
        .stderr()
        .split('\n')
        .filter((line) => /channel manager of|could not record a channel|claim is sent unchecked/.test(line)),
    )
    // What the assertions print: svc's records, the chain's transactions, the managers' errors, a line each.
    const summary = [
      'recorded:',
      ...records.map((entry) => `  ${entry.kind} ${entry.amount} ${entry.transaction}`),
      'on chain:',
      ...sent.map((tx) => `  ${tx.fn} ${tx.status} claimed ${tx.claimed} settled ${tx.settled} ${tx.hash}`),
      'errors:',
      ...failures,
    ].join('\n')

    // Each svc record is one of those transactions, recorded once, with the amount it moved; each of them recorded.
    const byTransaction = new Map(sent.map((tx) => [tx.hash.toLowerCase(), tx]))
    const transactions = records.map((entry) => entry.transaction.toLowerCase())
    expect(new Set(transactions).size, summary).toBe(transactions.length)
    for (const entry of records) {
      const tx = byTransaction.get(entry.transaction.toLowerCase())
      expect(tx, summary).toBeDefined()
      expect(entry.amount, summary).toBe((entry.kind === 'claim' ? tx!.claimed : tx!.settled).toString())
    }
    expect(records.length, summary).toBe(sent.length)
    // What the buyers paid, claimed once and settled once, on the chain and in svc's records.
    const total = (kind: string) =>
      records.filter((entry) => entry.kind === kind).reduce((sum, entry) => sum + BigInt(entry.amount), 0n)
    expect({ claimed: total('claim'), settled: total('settle') }, summary).toEqual({ claimed: paid, settled: paid })
    // No transaction moved nothing or was refused: each claim claimed, each settle settled.
    expect(
      sent.filter((tx) => tx.status !== 'success' || (tx.fn === 'settle' ? tx.settled : tx.claimed) === 0n),
      summary,
    ).toEqual([])
    expect(failures, summary).toEqual([])
  },
  240_000,
)
