/**
 * Issue 35 item 7: a chain reloaded from an older state file (not a snapshot revert: here, svc stopped and the data
 * dir's `chain/state.json` replaced with a copy from before a buyer's withdrawal) does not have the withdrawal svc
 * recorded. The next start finds the chain went back below where svc read its channel logs, and the channel's records
 * are the chain's again: the withdraw request and withdrawal it lacks are no longer the channel's transactions, the
 * channel is open with the chain's balance, nothing withdrawn.
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
const running: SvcProcess[] = []
afterAll(async () => {
  for (const svc of running) await svc.stop()
  rmSync(dataDir, { recursive: true, force: true })
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
  expect(third.stderr()).toMatch(/2 channel withdrawal record\(s\) are not on the chain/)
}, 180_000)
