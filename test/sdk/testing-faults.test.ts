/** The test handle's fault injection, chain restart and live events, with its `@x402/fetch` buyer paying. */
import { createPublicClient, erc20Abi, http, type Address } from 'viem'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { startSandbox, type TestSandbox } from '../../sdk/testing.js'
import type { PaymentEvent } from '../../sdk/types.js'
import { startUpstream } from '../server/gateway/helpers.js'
import { createSellerApi } from '../helpers/seller-api.js'

let sandbox: TestSandbox
let upstream: Awaited<ReturnType<typeof startUpstream>>
let apiId: string
let url: string

beforeAll(async () => {
  ;[sandbox, upstream] = await Promise.all([startSandbox(), startUpstream()])
  const { api, gatewayUrl } = await createSellerApi(sandbox, {
    slug: 'weather',
    name: 'Weather',
    upstreamUrl: upstream.url,
    endpoints: [{ path_pattern: '/weather/{city}', response_schema: { type: 'object' } }],
  })
  apiId = api.id
  url = `${gatewayUrl}/weather/Lima`
})
afterAll(async () => {
  await sandbox?.stop()
  await upstream?.stop()
})

const usdcOf = (address: Address) =>
  createPublicClient({ transport: http(sandbox.rpcUrl) }).readContract({
    address: sandbox.usdc.address as Address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })

/** The next `count` events of an iterator. */
async function take(events: AsyncIterator<PaymentEvent>, count: number): Promise<PaymentEvent[]> {
  const read: PaymentEvent[] = []
  while (read.length < count) {
    const { value, done } = await events.next()
    if (done) break
    read.push(value)
  }
  return read
}

test('faults.add: a settle fault refuses once, the buyer is not charged; events() tells it, then the settlement', async () => {
  const events = sandbox.events({ apiId })
  const before = await usdcOf(sandbox.buyer.address)
  const fault = await sandbox.faults.add({ kind: 'settle', reason: 'invalid_exact_evm_transaction_failed', times: 1 })
  expect(await sandbox.faults.list()).toEqual([expect.objectContaining({ id: fault.id, remaining: 1 })])
  expect((await sandbox.buyer.fetch(url)).status).toBe(402)
  expect(await usdcOf(sandbox.buyer.address)).toBe(before)
  expect(await sandbox.faults.list()).toEqual([])
  expect((await sandbox.buyer.fetch(url)).status).toBe(200)
  const seen = await take(events, 6)
  expect(seen.map((event) => [event.type, event.reason])).toEqual([
    ['payment.required', null],
    ['payment.verified', null],
    ['payment.failed', 'invalid_exact_evm_transaction_failed'],
    ['payment.required', null],
    ['payment.verified', null],
    ['payment.settled', null],
  ])
  await events.return!()
  expect(await usdcOf(sandbox.buyer.address)).toBe(before - 10000n)
})

test('faults.clear and restartChain: the chain comes back with its balances', async () => {
  await sandbox.faults.add({ kind: 'upstream', drop: true })
  await sandbox.faults.add({ kind: 'upstream', status: 503 })
  expect(await sandbox.faults.clear()).toBe(2)
  const before = await usdcOf(sandbox.buyer.address)
  const restarted = await sandbox.restartChain()
  expect(restarted.rpc_url).toBe(sandbox.rpcUrl)
  expect(await usdcOf(sandbox.buyer.address)).toBe(before)
  expect((await sandbox.buyer.fetch(url)).status).toBe(200)
})

test('events() ends with its signal', async () => {
  const stop = new AbortController()
  const events = sandbox.events({ signal: stop.signal })
  const next = events.next()
  stop.abort()
  expect(await next).toEqual({ value: undefined, done: true })
})
