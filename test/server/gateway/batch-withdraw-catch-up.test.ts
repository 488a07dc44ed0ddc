/**
 * A buyer's withdrawal made while svc was stopped is read at its next start (issue 24): a channel opened and paid
 * through svc's gateway by @x402/evm's batch-settlement client, its vouchers claimed and settled; svc's server stops
 * (the Sandbox chain goes on); the buyer calls initiateWithdraw, the chain's time passes the withdraw delay
 * (`evm_increaseTime` on Anvil) and finalizeWithdraw, all on the chain directly; svc's server starts again on the
 * same database and, from the block it had read to (`channel_log_cursors`), records the channel's withdraw request
 * and withdrawal once each, the channel closed with the chain's balance and claimed total. Reading the blocks again
 * (the cursor gone: from the channel's first block) changes nothing. A chain reverted below the cursor while svc was
 * stopped, with a withdraw request there and mined past the cursor again, is read again from the start (the cursor
 * keeps its last block's hash), so the request is not skipped.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestClient, http, type Hex } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import { addEndpoint, createApi, startUpstream, usdcBalance } from './helpers.js'
import {
  batchAccept,
  batchBuyer,
  channelConfigOf,
  channelIdOf,
  channelOnChain,
  depositOf,
  productionBatchApi,
  withdrawCall,
} from './batch-kit.js'

const price = 1_000n
const dir = mkdtempSync(join(tmpdir(), 'svc-withdraw-catch-up-'))
const databaseUrl = join(dir, 'svc.sqlite')
let services: ChainServices
let upstream: Awaited<ReturnType<typeof startUpstream>>
const servers: TestServer[] = []

beforeAll(async () => {
  services = await startChainServices()
  upstream = await startUpstream()
})
afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => {})
  await upstream?.stop()
  await services?.stop()
  rmSync(dir, { recursive: true, force: true })
})

async function startSvc(options: Parameters<typeof startTestServer>[0] = {}) {
  const t = await startTestServer({ chain: services, databaseUrl, ...options })
  servers.push(t)
  return t
}

test('a production channel (--rpc) is watched too: a withdraw request made while svc was stopped, read in bounded ranges', async () => {
  const network = 'eip155:845320402'
  const options = {
    databaseUrl: join(dir, 'production.sqlite'),
    productionFacilitatorUrl: services.facilitatorUrl,
    // The Sandbox chain stands in for a real network's RPC, which refuses wide log ranges.
    rpc: [`${network}=${services.sandboxChain.rpcUrl}`],
    rpcLogBlocks: 2,
  }
  let t = await startSvc(options)
  const { jwt, email, userId } = await t.signup()
  const seller = { jwt, userId, payTo: newAccount().address }
  const api = await productionBatchApi(t, services, seller, upstream.url, price)
  const { buyer, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  let channelId: Hex | undefined
  let deposit: Hex | undefined
  for (let i = 0; i < 2; i++) {
    const response = await pay(`${api.gateway}/weather/lima`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
    deposit ??= depositOf(response)
  }
  const id = channelId!.toLowerCase()
  let prod = { jwt, environment: 'production' }
  const shown = async () => (await t.call(`/channels/${id}`, prod)).body
  await expect.poll(async () => (await shown()).channel.settled, { timeout: 15_000 }).toBe('2000')
  await t.stop()

  const requested = await withdrawCall(services, buyer, 'initiateWithdraw', [
    await channelConfigOf(services, deposit!),
    8n * price,
  ])
  // A real network's head is read a few blocks behind (a short reorg may replace them): blocks come after it.
  await createTestClient({ mode: 'anvil', transport: http(services.sandboxChain.rpcUrl) }).mine({ blocks: 12 })
  t = await startSvc(options)
  const login = await t.call('/auth/login', { body: { email, password: 'correct horse battery' } })
  prod = { jwt: login.body.token, environment: 'production' }
  await expect.poll(async () => (await shown()).channel.state, { timeout: 10_000 }).toBe('withdrawing')
  expect((await shown()).transactions.filter((entry: { kind: string }) => entry.kind === 'withdraw_request')).toEqual([
    expect.objectContaining({ amount: '8000', transaction: requested }),
  ])
  const cursors = await t.server.database.db.selectFrom('channel_log_cursors').selectAll().execute()
  expect(cursors).toContainEqual(expect.objectContaining({ network, chain_epoch: '' }))
})

test('a chain reverted below where svc had read and mined past it again before svc looked: the withdraw between is read', async () => {
  const options = { databaseUrl: join(dir, 'revert.sqlite') }
  let t = await startSvc(options)
  const { jwt, email, userId } = await t.signup()
  const seller = { jwt, userId, payTo: newAccount().address }
  const api = await createApi(t, seller, upstream.url)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [batchAccept(services, price)],
  })
  const { buyer, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  let channelId: Hex | undefined
  let deposit: Hex | undefined
  for (let i = 0; i < 2; i++) {
    const response = await pay(`${t.gatewayUrl(api.slug)}/weather/rome`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
    deposit ??= depositOf(response)
  }
  const id = channelId!.toLowerCase()
  let dev = { jwt, environment: 'development' }
  const shown = async () => (await t.call(`/channels/${id}`, dev)).body
  await expect.poll(async () => (await shown()).channel.settled, { timeout: 15_000 }).toBe('2000')
  // The chain as it is now; then blocks svc reads past.
  const anvil = createTestClient({ mode: 'anvil', transport: http(services.sandboxChain.rpcUrl) })
  const snapshot = await anvil.snapshot()
  const revertedTo = await services.sandboxChain.client.getBlockNumber({ cacheTime: 0 })
  await anvil.mine({ blocks: 5 })
  const cursor = async () =>
    BigInt(
      (await t.server.database.db.selectFrom('channel_log_cursors').selectAll().executeTakeFirstOrThrow()).next_block,
    )
  await expect.poll(cursor, { timeout: 10_000 }).toBeGreaterThan(revertedTo + 5n)
  const readTo = await cursor()
  await t.stop()

  // The chain goes back below where svc had read (as one reloaded from an older state does); the buyer asks to
  // withdraw there, and blocks are mined past svc's read position before svc looks again.
  await anvil.revert({ id: snapshot })
  const requested = await withdrawCall(services, buyer, 'initiateWithdraw', [
    await channelConfigOf(services, deposit!),
    8n * price,
  ])
  await anvil.mine({ blocks: Number(readTo - revertedTo) + 2 })
  expect(await services.sandboxChain.client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(readTo)
  t = await startSvc(options)
  const login = await t.call('/auth/login', { body: { email, password: 'correct horse battery' } })
  dev = { jwt: login.body.token, environment: 'development' }
  await expect.poll(async () => (await shown()).channel.state, { timeout: 10_000 }).toBe('withdrawing')
  expect((await shown()).transactions.filter((entry: { kind: string }) => entry.kind === 'withdraw_request')).toEqual([
    expect.objectContaining({ amount: '8000', transaction: requested }),
  ])
})

// Last: it moves the chain's time 901 s ahead (a deposit signed by the machine's clock after it is refused).
test('a withdrawal initiated and finalized while svc was stopped is recorded once at the next start', async () => {
  let t = await startSvc()
  const { jwt, email, userId } = await t.signup()
  const seller = { jwt, userId, payTo: newAccount().address }
  const api = await createApi(t, seller, upstream.url)
  await addEndpoint(t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [batchAccept(services, price)],
  })
  const { buyer, pay } = batchBuyer(services)
  await services.manager.fund(buyer.address)
  const start = await usdcBalance(services, buyer.address)
  let channelId: Hex | undefined
  let deposit: Hex | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(`${t.gatewayUrl(api.slug)}/weather/oslo`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
    deposit ??= depositOf(response)
  }
  const id = channelId!.toLowerCase()
  let dev = { jwt: seller.jwt, environment: 'development' }
  const shown = async () => (await t.call(`/channels/${id}`, dev)).body
  /** svc started again on the same database: the seller signs in to it (a server's tokens are its own). */
  const restart = async () => {
    t = await startSvc()
    const login = await t.call('/auth/login', { body: { email, password: 'correct horse battery' } })
    dev = { jwt: login.body.token, environment: 'development' }
    return t
  }
  await expect.poll(async () => (await shown()).channel.settled, { timeout: 15_000 }).toBe('3000')
  // svc stops (its managers flush: nothing is left to claim) and the chain goes on without it.
  await t.stop()

  const config = await channelConfigOf(services, deposit!)
  const requested = await withdrawCall(services, buyer, 'initiateWithdraw', [config, 7n * price])
  const anvil = createTestClient({ mode: 'anvil', transport: http(services.sandboxChain.rpcUrl) })
  await anvil.increaseTime({ seconds: 901 })
  await anvil.mine({ blocks: 1 })
  const withdrawn = await withdrawCall(services, buyer, 'finalizeWithdraw', [config])
  expect(await usdcBalance(services, buyer.address)).toBe(start - 3n * price)
  const onChain = await channelOnChain(services, channelId!)
  expect(onChain).toEqual({ balance: 3n * price, totalClaimed: 3n * price })

  const expected = {
    deposited: '10000',
    spent: '3000',
    claimed: '3000',
    settled: '3000',
    balance: '3000',
    withdrawn: '7000',
    state: 'closed',
  }
  const withdrawals = async () =>
    (await shown()).transactions
      .filter((entry: { kind: string }) => entry.kind.startsWith('withdraw'))
      .map((entry: { kind: string; amount: string; transaction: string }) => [
        entry.kind,
        entry.amount,
        entry.transaction,
      ])
      .sort()
  await restart()
  await expect.poll(async () => (await shown()).channel.state, { timeout: 10_000 }).toBe('closed')
  expect((await shown()).channel).toMatchObject(expected)
  expect(await withdrawals()).toEqual([
    ['withdraw', '7000', withdrawn],
    ['withdraw_request', '7000', requested],
  ])
  const cursor = await t.server.database.db.selectFrom('channel_log_cursors').selectAll().executeTakeFirstOrThrow()
  const finalized = await services.sandboxChain.client.getTransactionReceipt({ hash: withdrawn })
  expect(BigInt(cursor.next_block)).toBeGreaterThan(finalized.blockNumber)
  await t.stop()

  // Read again from the channel's first block: nothing is recorded twice.
  const database = (await restart()).server.database.db
  await database.deleteFrom('channel_log_cursors').execute()
  await expect
    .poll(async () => (await database.selectFrom('channel_log_cursors').selectAll().executeTakeFirst())?.next_block)
    .toBe(cursor.next_block)
  expect((await shown()).channel).toMatchObject(expected)
  expect(await withdrawals()).toEqual([
    ['withdraw', '7000', withdrawn],
    ['withdraw_request', '7000', requested],
  ])
})
