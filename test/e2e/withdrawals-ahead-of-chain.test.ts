/**
 * Issue 35 item 7: a chain reloaded from an older state file (not a snapshot revert: here, svc stopped and the data
 * dir's `chain/state.json` replaced with a copy from before a buyer's withdrawal) does not have the withdrawal svc
 * recorded. The next start finds the chain went back below where svc read its channel logs, and the channel's records
 * are the chain's again: the withdraw request and withdrawal it lacks are no longer the channel's transactions, the
 * channel is open with the chain's balance, nothing withdrawn. The same for a channel's deposit, claim and settle:
 * a channel the chain does not have is empty and closed, and its vouchers are not claimed again.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, createWalletClient, http, parseEventLogs, type Hex } from 'viem'
import { afterAll, expect, test } from 'vitest'
import { batchSettlementAddresses } from '../../chain/batch-settlement/contracts.js'
import { x402BatchSettlementAbi } from '../../chain/contracts/x402-batch-settlement.generated.js'
import { localFetch } from '../../sdk/local-fetch.js'
import { seedApiWith, seedSeller, startSeeded } from '../helpers/crash-at.js'
import { newAccount } from '../helpers/payments.js'
import type { SvcProcess } from '../helpers/svc-process.js'
import {
  batchAcceptOf,
  channelIdOf,
  channelOnChainAt,
  depositOf,
  processBatchBuyer,
} from '../server/gateway/batch-kit.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-withdrawals-ahead-'))
const dirs = [dataDir]
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const price = 1_000n

test('withdrawals recorded on a chain then reloaded from an older state file are not kept: the channel is the chain’s', async () => {
  const first = await startSeeded(running, dataDir)
  const receiver = newAccount().address
  const { api } = await seedApiWith(first, 'withdrawn', receiver, [batchAcceptOf(first.ready.usdc, price)])
  const { buyer, pay } = await processBatchBuyer(first)
  let channelId: Hex | undefined
  let deposit: Hex | undefined
  for (let i = 0; i < 2; i++) {
    const response = await pay(`${api.gateway_url}/weather/oslo`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
    deposit ??= depositOf(response)
  }
  const id = channelId!.toLowerCase()
  let seller = await seedSeller(first)
  await expect
    .poll(async () => (await seller('GET', `/channels/${id}`)).channel.settled, { timeout: 20_000 })
    .toBe('2000')
  await first.stop()
  // The chain as it is now: the copy the test puts back later.
  const chainDir = join(dataDir, 'chain')
  copyFileSync(join(chainDir, 'state.json'), join(dataDir, 'older-state.json'))

  const second = await startSeeded(running, dataDir)
  seller = await seedSeller(second)
  const chain = createPublicClient({ transport: http(second.ready.rpc_url) })
  const receipt = await chain.getTransactionReceipt({ hash: deposit! })
  const [created] = parseEventLogs({ abi: x402BatchSettlementAbi, eventName: 'ChannelCreated', logs: receipt.logs })
  const wallet = createWalletClient({ account: buyer, transport: http(second.ready.rpc_url) })
  const call = async (functionName: 'initiateWithdraw' | 'finalizeWithdraw', args: readonly unknown[]) => {
    const { request } = await chain.simulateContract({
      account: buyer,
      address: batchSettlementAddresses.settlement,
      abi: x402BatchSettlementAbi,
      functionName,
      args: args as never,
    })
    const hash = await wallet.writeContract({ ...request, chain: null })
    await chain.waitForTransactionReceipt({ hash })
  }
  await call('initiateWithdraw', [created!.args.config, 8n * price])
  await expect
    .poll(async () => (await seller('GET', `/channels/${id}`)).channel.state, { timeout: 15_000 })
    .toBe('withdrawing')
  // svc time advance past the channel's withdraw delay, then the withdrawal.
  const advanced = await localFetch(`${second.ready.sandbox_control_url}/dev/time/advance`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ seconds: 900 }),
  })
  expect(advanced.status, await advanced.text()).toBe(200)
  await call('finalizeWithdraw', [created!.args.config])
  await expect
    .poll(async () => (await seller('GET', `/channels/${id}`)).channel.state, { timeout: 15_000 })
    .toBe('closed')
  const withdrawn = await seller('GET', `/channels/${id}`)
  expect(withdrawn.channel).toMatchObject({ withdrawn: '8000', balance: '2000' })
  expect(withdrawn.transactions.map((entry: { kind: string }) => entry.kind)).toEqual(
    expect.arrayContaining(['withdraw_request', 'withdraw']),
  )
  await second.stop()

  // svc stopped, its chain file replaced with the older copy: the withdrawal is not on the chain it loads.
  copyFileSync(join(dataDir, 'older-state.json'), join(chainDir, 'state.json'))
  const third = await startSeeded(running, dataDir)
  seller = await seedSeller(third)
  const onChain = await channelOnChainAt(createPublicClient({ transport: http(third.ready.rpc_url) }), channelId!)
  expect(onChain).toEqual({ balance: 10n * price, totalClaimed: 2n * price })
  await expect
    .poll(async () => (await seller('GET', `/channels/${id}`)).channel.state, { timeout: 15_000 })
    .toBe('open')
  const shown = await seller('GET', `/channels/${id}`)
  expect(shown.channel).toMatchObject({
    deposited: '10000',
    balance: '10000',
    claimed: '2000',
    settled: '2000',
    withdrawn: '0',
    state: 'open',
    old_chain: false,
  })
  expect(shown.transactions.map((entry: { kind: string }) => entry.kind).sort()).toEqual(['claim', 'deposit', 'settle'])
  expect(third.stderr()).toMatch(/2 channel transaction\(s\) svc recorded are not on the chain/)
}, 180_000)

test('a channel whose deposit, claim and settle are not on a chain reloaded from an older state file is the chain’s: empty, closed, none of them its transactions', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-channel-ahead-'))
  dirs.push(dir)
  const first = await startSeeded(running, dir)
  await first.stop()
  // The chain before any channel: the copy the test puts back later.
  const chainDir = join(dir, 'chain')
  copyFileSync(join(chainDir, 'state.json'), join(dir, 'older-state.json'))

  const second = await startSeeded(running, dir)
  let seller = await seedSeller(second)
  const receiver = newAccount().address
  const { api } = await seedApiWith(second, 'gone', receiver, [batchAcceptOf(second.ready.usdc, price)])
  const { pay } = await processBatchBuyer(second)
  let channelId: Hex | undefined
  for (let i = 0; i < 2; i++) {
    const response = await pay(`${api.gateway_url}/weather/oslo`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
  }
  const id = channelId!.toLowerCase()
  await expect
    .poll(async () => (await seller('GET', `/channels/${id}`)).channel.settled, { timeout: 20_000 })
    .toBe('2000')
  await second.stop()

  copyFileSync(join(dir, 'older-state.json'), join(chainDir, 'state.json'))
  const third = await startSeeded(running, dir)
  seller = await seedSeller(third)
  expect(await channelOnChainAt(createPublicClient({ transport: http(third.ready.rpc_url) }), channelId!)).toEqual({
    balance: 0n,
    totalClaimed: 0n,
  })
  await expect
    .poll(async () => (await seller('GET', `/channels/${id}`)).channel.state, { timeout: 15_000 })
    .toBe('closed')
  const shown = await seller('GET', `/channels/${id}`)
  expect(shown.channel).toMatchObject({ deposited: '0', balance: '0', claimed: '0', settled: '0', old_chain: false })
  expect(shown.transactions).toEqual([])
  expect(third.stderr()).toMatch(/3 channel transaction\(s\) svc recorded are not on the chain/)
  // Its vouchers are not claimed again on a chain without the channel (every try would fail).
  await new Promise((resolve) => setTimeout(resolve, 3_000))
  expect(third.stderr()).not.toMatch(/channel manager of/)
}, 180_000)
