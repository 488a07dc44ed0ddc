/**
 * Issue 35 item 7: a production channel claim that succeeded on the external facilitator and was not recorded by
 * svc's gateway before `svc serve` died (SVC_PAUSE_AT=channel-claim-record, then SIGKILL) is not in svc's journal
 * (the facilitator's journal is its own). The next start reads the channels' claimed totals from the chain (`--rpc`)
 * and the claim's transaction from the contract's logs: the claim is recorded with its real transaction and amount,
 * and the next claim claims only the vouchers paid since (no claim of what the chain has already, whose empty
 * transaction svc would record as a claim of everything). The "real network" is svc's Sandbox chain in this test
 * process, its facilitator the external one, as in serve-recovery.test.ts. The manager's schedule is a day long, so
 * no claim comes on a timer: each claim is the one svc makes when it stops (SIGTERM: the managers claim and settle
 * once more), sent when the test has paid every voucher it means that claim to take, whatever the machine's load.
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
import type { Hex } from 'viem'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { fetchFrom, startServeProcess, type ServeProcess } from '../../helpers/serve-process.js'
import { newAccount } from '../../helpers/payments.js'
import { channelIdOf, channelOnChainAt } from '../gateway/batch-kit.js'

const dir = mkdtempSync(join(tmpdir(), 'svc-claim-external-'))
const jwtFile = join(dir, 'jwt.key')
const walletFile = join(dir, 'wallet.key')
writeFileSync(jwtFile, `${randomBytes(32).toString('hex')}\n`)
writeFileSync(walletFile, `${randomBytes(32).toString('hex')}\n`)
const direct = fetchFrom('127.0.0.1')
const running: ServeProcess[] = []
const price = 1_000n
/** The managers' schedule (seconds): longer than the test, so only a stop claims. */
const claimEvery = 86_400

let services: ChainServices
let upstreamUrl: string
const upstream: Server = createServer((req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: req.url })),
)

beforeAll(async () => {
  services = await startChainServices()
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.3', resolve))
  upstreamUrl = `http://127.0.0.3:${(upstream.address() as { port: number }).port}`
}, 60_000)
afterAll(async () => {
  for (const svc of running) await svc.stop()
  upstream.close()
  await services?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** `svc serve`, production only, on the data dir `name`, its facilitator the external one; paused if asked. */
async function serve(name: string, pauseAt?: string) {
  const env = pauseAt ? { ...process.env, SVC_PAUSE_AT: pauseAt } : process.env
  const svc = await startServeProcess(
    [
      ...['--sandbox-chain', 'none', '--data-dir', join(dir, name), '--platform-domain', 'pay.test'],
      ...['--jwt-secret-file', jwtFile, '--wallet-key-file', walletFile, '--auto-verify'],
      ...['--facilitator-url', services.facilitatorUrl, '--allow-upstream', '127.0.0.3'],
      ...['--rpc', `${services.sandboxChain.network}=${services.rpcUrl}`],
    ],
    env,
  )
  running.push(svc)
  return svc
}

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

test('a claim the external facilitator made, unrecorded when svc serve died, is recorded from the chain at the next start; the next claim claims only the new vouchers', async () => {
  let svc = await serve('a', 'channel-claim-record')
  const signup = await call(svc, 'POST', '/auth/signup', undefined, {
    email: 'claims@pay.test',
    password: 'a-long-password',
  })
  const token = signup.body.token as string
  const receiver = newAccount().address
  const created = await call(svc, 'POST', '/apis', token, {
    name: 'Claims',
    slug: 'claims',
    upstream_base_url: upstreamUrl,
    pay_to_mode: 'user_wallet',
    pay_to_address: receiver,
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const { name, version, address: usdc } = services.sandboxChain.usdc
  const endpoint = await call(svc, 'POST', `/apis/${created.body.id}/endpoints`, token, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [
      {
        scheme: 'batch-settlement',
        network: services.sandboxChain.network,
        asset: usdc,
        amount: price.toString(),
        extra: {
          minDeposit: (10n * price).toString(),
          claimIntervalSeconds: claimEvery,
          settleIntervalSeconds: claimEvery,
          name,
          version,
        },
      },
    ],
    request_schema: null,
    response_schema: null,
  })
  expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201)

  const buyer = newAccount()
  await services.manager.fund(buyer.address)
  const scheme = new BatchClient(toClientEvmSigner(buyer, services.sandboxChain.client as never))
  const client = new x402Client()
    .register(services.sandboxChain.network as `${string}:${string}`, scheme)
    .setSpendControls({ allowedAssets: true })
  const pay = wrapFetchWithPayment(direct, client)
  const url = (port: number) => `http://claims.pay.test:${port}/weather/oslo`
  let channelId: Hex | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(url(svc.ready.port))
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
  }
  // Stopping, the manager claims the three vouchers through the external facilitator; svc dies before it records the
  // claim.
  svc.child.kill('SIGTERM')
  await vi.waitFor(() => expect(svc.stderr()).toContain('paused at channel-claim-record'), {
    timeout: 30_000,
    interval: 20,
  })
  svc.child.kill('SIGKILL')
  await svc.exited
  expect(await channelOnChainAt(services.sandboxChain.client, channelId!)).toEqual({
    balance: 10n * price,
    totalClaimed: 3n * price,
  })

  svc = await serve('a')
  const login = await call(svc, 'POST', '/auth/login', undefined, {
    email: 'claims@pay.test',
    password: 'a-long-password',
  })
  const shown = async () => (await call(svc, 'GET', `/channels/${channelId!.toLowerCase()}`, login.body.token)).body
  await expect.poll(async () => (await shown()).channel?.settled, { timeout: 20_000 }).toBe('3000')
  expect(svc.stderr()).toMatch(
    /a claim of 0x[0-9a-f]{40} on eip155:845320402 svc had not recorded .* is recorded from the chain: 0x/,
  )
  expect((await shown()).channel).toMatchObject({ spent: '3000', claimed: '3000' })
  // Two more vouchers on the same channel: the next claim (svc stopping) claims these two only, and settles them.
  for (let i = 0; i < 2; i++) {
    const response = await pay(url(svc.ready.port))
    expect(response.status, await response.text()).toBe(200)
  }
  await expect.poll(async () => (await shown()).channel?.spent, { timeout: 10_000 }).toBe('5000')
  expect((await shown()).channel).toMatchObject({ claimed: '3000', settled: '3000' })
  expect(await svc.stop()).toBe(0)

  // Read back on the next start.
  svc = await serve('a')
  const again = await call(svc, 'POST', '/auth/login', undefined, {
    email: 'claims@pay.test',
    password: 'a-long-password',
  })
  const { channel, transactions } = (await call(svc, 'GET', `/channels/${channelId!.toLowerCase()}`, again.body.token))
    .body
  expect(channel).toMatchObject({ deposited: '10000', spent: '5000', claimed: '5000', settled: '5000' })

  const claims = await services.sandboxChain.client.getContractEvents({
    address: batchSettlementAddresses.settlement,
    abi: x402BatchSettlementAbi,
    eventName: 'Claimed',
    args: { receiver },
    fromBlock: 0n,
  })
  expect(claims.map((log) => log.args.amount)).toEqual([3n * price, 2n * price])
  // svc's claims are the chain's: the one it died with, by its real transaction, and the next, of the new vouchers.
  const recorded = transactions
    .filter((entry: { kind: string }) => entry.kind === 'claim')
    .map((entry: { transaction: string; amount: string }) => ({ transaction: entry.transaction, amount: entry.amount }))
    .sort((a: { amount: string }, b: { amount: string }) => Number(b.amount) - Number(a.amount))
  expect(recorded).toEqual(
    claims.map((log) => ({ transaction: log.transactionHash, amount: log.args.amount!.toString() })),
  )
  expect(await channelOnChainAt(services.sandboxChain.client, channelId!)).toEqual({
    balance: 10n * price,
    totalClaimed: 5n * price,
  })
}, 120_000)
