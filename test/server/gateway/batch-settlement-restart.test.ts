/**
 * Channel managers start with svc, not with a receiver's next request (issue 24): vouchers paid through the gateway
 * and not yet claimed when `svc up` was killed (`kill -9`) are claimed and settled to the receiver on the endpoint's
 * schedule after the next start on the same data dir, with no request in between; svc's record of the channel agrees
 * with the chain. Paid by @x402/evm's batch-settlement client.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createPublicClient, http, type Address, type Hex } from 'viem'
import { afterAll, expect, test, vi } from 'vitest'
import { killNow, seedApiWith, seedSeller, startSeeded, usdcBalance } from '../../helpers/crash-at.js'
import { newAccount } from '../../helpers/payments.js'
import type { SvcProcess } from '../../helpers/svc-process.js'
import { batchAcceptOf, channelIdOf, channelOnChainAt, processBatchBuyer } from './batch-kit.js'

const dataDir = mkdtempSync(join(tmpdir(), 'svc-channel-restart-'))
const running: SvcProcess[] = []
afterAll(async () => {
  await Promise.all(running.map((svc) => svc.stop()))
  rmSync(dataDir, { recursive: true, force: true })
})

test('vouchers unclaimed when svc was killed are claimed and settled after the next start, with no request', async () => {
  const price = 1_000n
  const svc = await startSeeded(running, dataDir)
  const receiver = newAccount().address
  const accept = (claimEvery: number) => batchAcceptOf(svc.ready.usdc, price, { claimIntervalSeconds: claimEvery })
  // An hour between claims while the buyer pays: nothing is claimed before svc is killed.
  const { call, api, endpoint } = await seedApiWith(svc, 'channels', receiver, [accept(3600)])

  const { chain, pay } = await processBatchBuyer(svc)
  let channelId: Hex | undefined
  for (let i = 0; i < 3; i++) {
    const response = await pay(`${api.gateway_url}/weather/oslo`)
    expect(response.status, await response.text()).toBe(200)
    channelId ??= channelIdOf(response)
  }
  // The seller shortens the schedule; the receiver's manager takes it at its next request, or at svc's next start.
  await call('PUT', `/apis/${api.id}/endpoints/${endpoint.id}`, { accepts: [accept(1)] })
  const claimedOnChain = async (client = chain) => (await channelOnChainAt(client, channelId!)).totalClaimed
  expect(await claimedOnChain()).toBe(0n)
  await killNow(svc, dataDir)

  const again = await startSeeded(running, dataDir)
  const after = createPublicClient({ transport: http(again.ready.rpc_url) })
  expect(await usdcBalance(again, receiver as Address)).toBe(0n)
  await vi.waitFor(async () => expect(await usdcBalance(again, receiver as Address)).toBe(3n * price), {
    timeout: 20_000,
    interval: 250,
  })
  expect(await claimedOnChain(after)).toBe(3n * price)
  const seller = await seedSeller(again)
  await vi.waitFor(
    async () =>
      expect((await seller('GET', `/channels/${channelId}`)).channel).toMatchObject({
        spent: '3000',
        claimed: '3000',
        settled: '3000',
        vouchers: 3,
      }),
    { timeout: 5_000 },
  )
})
