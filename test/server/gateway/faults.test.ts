/**
 * Fault injection (`svc fault add`) as a paying client meets it: the official `@x402/fetch` client pays svc's gateway
 * (and an `@x402/express` seller on svc's facilitator URL), and the chain says who was charged.
 */
import express from 'express'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { ExactEvmScheme } from '@x402/evm/exact/server'
import { paymentMiddleware } from '@x402/express'
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest'
import { listen, type Listening } from '../../../core/http.js'
import { newAccount } from '../../helpers/payments.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type GatewayStack,
} from './helpers.js'

let stack: GatewayStack
let url: string
let slug: string
let payTo: `0x${string}`

/** The gateway's upstream deadline in this file (lowered, so a delay past it is quick to see). */
const deadlineMs = 1500

beforeAll(async () => {
  stack = await startGatewayStack({ paidRoutes: { timeoutMs: deadlineMs } })
  const seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, stack.upstream.url)
  await addEndpoint(stack.t, seller, api.id, {
    method: 'GET',
    path_pattern: '/weather/{city}',
    accepts: [sandboxAccept(stack.services)],
  })
  url = `${api.gateway}/weather/Lima`
  slug = api.slug
  payTo = seller.payTo
})
afterAll(() => stack?.stop())
afterEach(async () => {
  await addFault(undefined)
})

/** POST /dev/faults on the Sandbox control plane (a local caller); `undefined` clears them all. */
async function addFault(fault: Record<string, unknown> | undefined) {
  if (fault === undefined) return stack.t.call('/dev/faults', { host: 'development', method: 'DELETE' })
  const answer = await stack.t.call('/dev/faults', { host: 'development', body: fault })
  expect(answer.status, JSON.stringify(answer.body)).toBe(201)
  return answer
}

/** A buyer with 1 USDC, its paying fetch, and a way to read what it and the seller hold. */
async function newBuyer() {
  const buyer = newAccount()
  await stack.services.manager.fund(buyer.address, 'usdc', '1')
  const balances = async () => ({
    buyer: await usdcBalance(stack.services, buyer.address),
    seller: await usdcBalance(stack.services, payTo),
  })
  return { buyer, pay: payingFetch(stack.services, buyer), balances }
}

const upstreamCalls = () => stack.upstream.calls.filter((call) => call.url.startsWith('/weather/')).length

describe('verify faults', () => {
  test('the buyer gets a 402 with the injected reason, the upstream is not called, nothing moves; after its one strike the next payment settles', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    const calls = upstreamCalls()
    const added = await addFault({
      kind: 'verify',
      reason: 'invalid_exact_evm_insufficient_balance',
      times: 1,
      api: slug,
    })
    expect(added.body).toMatchObject({ kind: 'verify', api: slug, times: 1, remaining: 1, hits: 0 })

    const refused = await pay(url)
    expect(refused.status).toBe(402)
    const body = (await refused.json()) as { error: string }
    expect(body.error).toBe(
      `the payment is invalid: invalid_exact_evm_insufficient_balance (injected by svc fault ${added.body.id})`,
    )
    expect(upstreamCalls()).toBe(calls)
    expect(await balances()).toEqual(before)
    expect((await stack.t.call('/dev/faults', { host: 'development' })).body.faults).toEqual([])

    const paid = await pay(url)
    expect(paid.status).toBe(200)
    expect((await balances()).buyer).toBe(before.buyer - 10000n)
  })

  test('an unknown reason is a 400 naming it; a fault for an API that does not exist is a 404', async () => {
    const unknown = await stack.t.call('/dev/faults', {
      host: 'development',
      body: { kind: 'verify', reason: 'no_such_reason' },
    })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toMatch(/^reason: "no_such_reason" is not a reason of the exact scheme/)
    const noApi = await stack.t.call('/dev/faults', {
      host: 'development',
      body: { kind: 'verify', reason: 'invalid_exact_evm_signature', api: 'nope-none' },
    })
    expect(noApi).toMatchObject({ status: 404, body: { error: 'no Sandbox API has the slug "nope-none"' } })
    const twoEffects = await stack.t.call('/dev/faults', {
      host: 'development',
      body: { kind: 'upstream', status: 503, drop: true },
    })
    expect(twoEffects).toMatchObject({
      status: 400,
      body: { error: 'an upstream fault takes exactly one of status, delay_ms and drop' },
    })
  })
})

describe('settle faults', () => {
  test('a settle reason: a 402 with it, no transaction sent (no block mined), the buyer not charged', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'settle', reason: 'invalid_exact_evm_transaction_failed' })
    const block = await stack.services.sandboxChain.client.getBlockNumber()
    const refused = await pay(url)
    expect(refused.status).toBe(402)
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^the payment could not be settled: invalid_exact_evm_transaction_failed \(injected by svc fault flt_[0-9a-f]+\)$/,
    )
    expect(await stack.services.sandboxChain.client.getBlockNumber()).toBe(block)
    expect(await balances()).toEqual(before)
  })

  test('a settle delay: the payment settles, that much later', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'settle', delay_ms: 400, times: 1 })
    const started = performance.now()
    const paid = await pay(url)
    expect(paid.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(400)
    expect(await balances()).toEqual({ buyer: before.buyer - 10000n, seller: before.seller + 10000n })
  })

  test('a payment meets a settle delay of every API once: one strike of its times used, its delay waited once', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    const added = await addFault({ kind: 'settle', delay_ms: 400, times: 3 })
    const started = performance.now()
    const paid = await pay(url)
    expect(paid.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(400)
    expect(await balances()).toEqual({ buyer: before.buyer - 10000n, seller: before.seller + 10000n })
    const { faults } = (await stack.t.call('/dev/faults', { host: 'development' })).body
    expect(faults).toEqual([expect.objectContaining({ id: added.body.id, times: 3, remaining: 2, hits: 1 })])
  })
})

describe('upstream faults', () => {
  test('a 5xx status: 502, not settled, the buyer not charged, the upstream not called', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    const calls = upstreamCalls()
    await addFault({ kind: 'upstream', status: 503, api: slug })
    const answer = await pay(url)
    expect(answer.status).toBe(502)
    expect(((await answer.json()) as { error: string }).error).toBe(
      'the upstream answered 503; the payment was not settled',
    )
    expect(upstreamCalls()).toBe(calls)
    expect(await balances()).toEqual(before)
  })

  test('a 4xx status reaches the buyer as the upstream sent it, nothing settled', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'upstream', status: 429 })
    const answer = await pay(url)
    expect(answer.status).toBe(429)
    expect(((await answer.json()) as { error: string }).error).toMatch(
      /^the upstream answered 429 \(injected by svc fault flt_/,
    )
    expect(await balances()).toEqual(before)
  })

  test('a dropped connection: 502, not settled, the buyer not charged', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'upstream', drop: true, times: 1 })
    const answer = await pay(url)
    expect(answer.status).toBe(502)
    expect(((await answer.json()) as { error: string }).error).toMatch(
      /^the upstream could not be reached \(ECONNRESET\) \(injected by svc fault flt_[0-9a-f]+\); the payment was not settled$/,
    )
    expect(await balances()).toEqual(before)
  })

  test('a delay: the upstream answers later and the payment settles', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'upstream', delay_ms: 300, times: 1 })
    const started = performance.now()
    const answer = await pay(url)
    expect(answer.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(300)
    expect((await balances()).buyer).toBe(before.buyer - 10000n)
  })

  test("a delay past the gateway's deadline: 504 at the deadline, not settled, the buyer not charged", async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'upstream', delay_ms: 60_000, times: 1 })
    const started = performance.now()
    const answer = await pay(url)
    expect(answer.status).toBe(504)
    expect(performance.now() - started).toBeGreaterThanOrEqual(deadlineMs)
    expect(((await answer.json()) as { error: string }).error).toMatch(
      /^the upstream did not answer within 1\.5 s \(injected by svc fault flt_[0-9a-f]+\); the payment was not settled$/,
    )
    expect(await balances()).toEqual(before)
  })
})

describe("an @x402/express seller on svc's facilitator URL", () => {
  let seller: Listening
  beforeAll(async () => {
    const { services } = stack
    const server = new x402ResourceServer(new HTTPFacilitatorClient({ url: services.facilitatorUrl })).register(
      'eip155:845320402',
      new ExactEvmScheme(),
    )
    const app = express()
    const price = {
      amount: '10000',
      asset: services.sandboxChain.usdc.address,
      extra: { name: 'USDC', version: '2', assetTransferMethod: 'eip3009' },
    }
    app.use(
      paymentMiddleware(
        {
          'GET /joke': {
            accepts: { scheme: 'exact', network: 'eip155:845320402', payTo, price, maxTimeoutSeconds: 300 },
          },
        },
        server,
      ),
    )
    app.get('/joke', (_req, res) => void res.json({ joke: 'a paid one' }))
    seller = await listen(app)
  })
  afterAll(() => seller?.close())

  test('meets the faults of every API: a verify fault refuses, a settle fault charges nothing', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    await addFault({ kind: 'verify', reason: 'invalid_exact_evm_signature', times: 1 })
    const refused = await pay(`${seller.url}/joke`)
    expect(refused.status).toBe(402)
    expect(await balances()).toEqual(before)

    await addFault({ kind: 'settle', reason: 'invalid_exact_evm_nonce_already_used', times: 1 })
    const unsettled = await pay(`${seller.url}/joke`)
    expect(unsettled.status).toBe(402)
    expect(await balances()).toEqual(before)

    const paid = await pay(`${seller.url}/joke`)
    expect(paid.status).toBe(200)
    expect((await balances()).buyer).toBe(before.buyer - 10000n)
  })
})

describe('who may', () => {
  test('the production control plane, and requests that bear the gateway header, are refused', async () => {
    const production = await stack.t.call('/dev/faults', { body: { kind: 'upstream', drop: true } })
    expect(production.status).toBe(403)
    expect(production.body.error).toMatch(
      /^faults are changed: for the Sandbox only \(call http:\/\/sandbox\.localhost:\d+\)$/,
    )
    const viaGateway = await stack.t.call('/dev/faults', { host: 'development', headers: { 'x-svc-via-gateway': '1' } })
    expect(viaGateway).toMatchObject({ status: 403, body: { error: 'faults are read: from this machine only' } })
    const restart = await stack.t.call('/dev/chain/restart', {
      host: 'development',
      method: 'POST',
      headers: { 'x-svc-via-gateway': '1' },
    })
    expect(restart.status).toBe(403)
  })
})

describe('svc chain restart', () => {
  test('Anvil restarts on the same URL with its state: balances kept, paying works after', async () => {
    const { pay, balances } = await newBuyer()
    const before = await balances()
    const pid = stack.services.sandboxChain.pid
    const reloaded = new Promise((resolve) => stack.services.sandboxChain.once('reload', resolve))
    const restarted = await stack.t.call('/dev/chain/restart', { host: 'development', method: 'POST' })
    expect(restarted.status, JSON.stringify(restarted.body)).toBe(200)
    expect(restarted.body).toMatchObject({ restarted: true, rpc_url: stack.services.rpcUrl })
    await reloaded
    expect(stack.services.sandboxChain.pid).not.toBe(pid)
    expect(await balances()).toEqual(before)
    const paid = await pay(url)
    expect(paid.status).toBe(200)
    expect((await balances()).buyer).toBe(before.buyer - 10000n)
  })
})
