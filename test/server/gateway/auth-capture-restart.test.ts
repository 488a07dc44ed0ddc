/**
 * Escrow payments (x402 auth-capture, issue 39) while svc's Sandbox chain restarts (`svc chain restart`: the same
 * chain, back in a moment): a seller's capture, void and refund (the control plane over HTTP and through the SDK) and
 * a buyer's payment on an auth-capture route (sync and deferred) answer 503 with Retry-After, "the Sandbox chain is
 * restarting", never a 500, a 409 or a hang; they record nothing and move nothing; once the chain is back, each works.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { x402Client } from '@x402/core/client'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, erc20Abi, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { buyerEscrowAbi } from '../../../core/auth-capture/buyer.js'
import { createSvcClient } from '../../../sdk/client.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { serverUrl } from '../../helpers/seller-api.js'
import { addEndpoint, createApi, type GatewayStack, newSeller, type Seller, startGatewayStack } from './helpers.js'

const price = 10_000n
let stack: GatewayStack
let seller: Seller
let upstream: Server
let gatewayUrl: string
let buyerFetch: typeof fetch

beforeAll(async () => {
  upstream = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'))
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  stack = await startGatewayStack({ chain: { healthIntervalMs: 100 } })
  seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, serverUrl(upstream))
  gatewayUrl = api.gateway
  const sandbox = stack.services.sandboxChain
  for (const [path, captureMode] of [
    ['/sync', 'sync'],
    ['/deferred', 'deferred'],
  ] as const)
    await addEndpoint(stack.t, seller, api.id, {
      method: 'GET',
      path_pattern: path,
      accepts: [
        {
          scheme: 'auth-capture',
          network: sandbox.network,
          asset: sandbox.usdc.address,
          amount: String(price),
          max_timeout_seconds: 300,
          extra: { captureMode },
        },
      ],
    })
  const payer = new x402Client().register(sandbox.network as never, new AuthCaptureEvmScheme(stack.buyer))
  payer.setSpendControls({
    allowedAssets: [{ network: sandbox.network as never, asset: sandbox.usdc.address, maxAmountPerPayment: '1000000' }],
  })
  buyerFetch = wrapFetchWithPayment(localFetch, payer)
})

afterAll(async () => {
  await stack?.stop()
  upstream?.close()
})

const chain = () => stack.services.sandboxChain
const usdcOf = (address: string) =>
  chain().client.readContract({
    address: chain().usdc.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address as Address],
  })
const sdk = () =>
  createSvcClient({ baseUrl: stack.t.server.sandboxControlUrl, jwt: seller.jwt, environment: 'development' })
const http = async (path: string, body: object) => {
  const response = await localFetch(`${stack.t.server.sandboxControlUrl}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${seller.jwt}`,
      'x-svc-environment': 'development',
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  })
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  }
}
/** What an SDK call of the seller's ends as: its status and message. */
const viaSdk = (call: Promise<unknown>) =>
  call.then(
    () => ({ status: 200, retryAfter: null, body: {} }),
    (error: { status?: number; message: string }) => ({
      status: error.status ?? 0,
      retryAfter: '1',
      body: { error: error.message },
    }),
  )
const paid = async (path: string) => {
  const response = await buyerFetch(`${gatewayUrl}${path}`)
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as any,
  }
}
async function paymentState(payment: { escrow: string; payment_info_hash: string }) {
  const [, capturable, refundable] = await chain().client.readContract({
    address: payment.escrow as Address,
    abi: buyerEscrowAbi,
    functionName: 'paymentState',
    args: [payment.payment_info_hash as Hex],
  })
  return { capturable, refundable }
}
const settlementsOf = async () => (await sdk().settlements.list({ limit: 100 })).settlements
const paymentsOf = () => sdk().payments.list({ limit: 100 })

describe('auth-capture while the chain restarts', () => {
  test('capture, void, refund and a buyer’s payment answer 503 with Retry-After, move and record nothing; after the restart each works', {
    timeout: 120_000,
  }, async () => {
    const deferred = await paid('/deferred')
    expect(deferred.status, JSON.stringify(deferred)).toBe(200)
    const [payment] = await paymentsOf()
    const id = payment!.id
    await sdk().payments.capture(id, { amount: '4000' })
    const before = {
      detail: await sdk().payments.get(id),
      state: await paymentState(payment!),
      buyer: await usdcOf(stack.buyer.address),
      seller: await usdcOf(seller.payTo),
      settlements: await settlementsOf(),
    }

    let restarted = false
    const restart = chain()
      .restartKeepingState()
      .then(() => (restarted = true))
    await expect.poll(() => chain().restarting || restarted).toBe(true)
    type Answer = { via: string; status: number; retryAfter: string | null; body: any }
    const during: Answer[] = []
    const crossed: Answer[] = []
    for (let round = 0; round < 40 && !restarted; round++) {
      const answers = await Promise.all([
        http(`/payments/${id}/capture`, { amount: '1000' }).then((answer) => ({ via: 'POST capture', ...answer })),
        http(`/payments/${id}/void`, {}).then((answer) => ({ via: 'POST void', ...answer })),
        http(`/payments/${id}/refund`, { amount: '1000' }).then((answer) => ({ via: 'POST refund', ...answer })),
        viaSdk(sdk().payments.capture(id, { amount: '1000' })).then((answer) => ({ via: 'sdk capture', ...answer })),
        viaSdk(sdk().payments.refund(id, { amount: '1000' })).then((answer) => ({ via: 'sdk refund', ...answer })),
        paid('/sync').then((answer) => ({ via: 'pay /sync', ...answer })),
        paid('/deferred').then((answer) => ({ via: 'pay /deferred', ...answer })),
      ])
      // Answers that crossed the end of the restart are not the window's: each may have been served either way.
      ;(restarted ? crossed : during).push(...answers)
    }
    await restart
    expect(during.length).toBeGreaterThanOrEqual(7)
    for (const answer of during) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, retryAfter: '1' })
      expect(answer.body.error).toMatch(/the Sandbox chain is restarting: retry in a moment/)
    }
    for (const answer of crossed) expect([200, 409, 503], JSON.stringify(answer)).toContain(answer.status)

    // Nothing moved or recorded but what an answer of 200 (after the restart) said: the records agree with the chain
    // and the balances, one settlement per payment.
    const served = (pay: boolean) =>
      crossed.filter((answer) => answer.via.startsWith('pay') === pay && answer.status === 200).length
    const payments = await paymentsOf()
    expect(payments).toHaveLength(1 + served(true))
    expect((await settlementsOf()).length).toBe(before.settlements.length + served(true))
    const detail = await sdk().payments.get(id)
    expect(detail.transactions).toHaveLength(before.detail.transactions.length + served(false))
    for (const row of payments)
      expect(await paymentState(row)).toEqual({
        capturable: BigInt(row.capturable),
        refundable: BigInt(row.refundable),
      })
    const sum = (amount: (row: (typeof payments)[number]) => bigint) =>
      payments.reduce((total, row) => total + amount(row), 0n)
    expect(before.buyer - (await usdcOf(stack.buyer.address))).toBe(
      sum((row) => BigInt(row.authorized) - BigInt(row.voided) - BigInt(row.refunded)) - price,
    )
    expect((await usdcOf(seller.payTo)) - before.seller).toBe(
      sum((row) => BigInt(row.captured) - BigInt(row.refunded)) - 4_000n,
    )

    // The chain is back: each works.
    const fresh = await paid('/deferred')
    expect(fresh.status, JSON.stringify(fresh)).toBe(200)
    const next = (await paymentsOf()).find((row) => !payments.some((old) => old.id === row.id))!
    expect((await sdk().payments.capture(next.id, { amount: '4000' })).payment).toMatchObject({ captured: '4000' })
    expect((await http(`/payments/${next.id}/refund`, { amount: '1000' })).status).toBe(200)
    const voided = await http(`/payments/${next.id}/void`, {})
    expect(voided.body.payment).toMatchObject({ voided: '6000', refunded: '1000' })
    expect(await paymentState(next)).toEqual({ capturable: 0n, refundable: 3000n })
    expect((await paid('/sync')).status).toBe(200)
  })

  test('Anvil killed (-9) under a refund: it answers 200 or 503, never a 409 or 500; the window 503; the new chain takes payments, and the old chain’s are refused as such', {
    timeout: 120_000,
  }, async () => {
    const held = await paid('/deferred')
    expect(held.status, JSON.stringify(held)).toBe(200)
    const [payment] = await paymentsOf()
    await sdk().payments.capture(payment!.id, { amount: '2000' })
    let restarted = false
    const restart = new Promise((resolve) => chain().once('restart', resolve)).then(() => (restarted = true))
    // In flight as Anvil dies: the chain's answer, or 503, whichever the moment gives.
    const inFlight = http(`/payments/${payment!.id}/refund`, { amount: '1000' })
    process.kill(chain().pid!, 'SIGKILL')
    await expect.poll(() => chain().restarting || restarted).toBe(true)
    const during: { status: number; retryAfter: string | null; body: any }[] = []
    for (let round = 0; round < 40 && !restarted; round++) {
      const answers = await Promise.all([
        http(`/payments/${payment!.id}/void`, {}),
        viaSdk(sdk().payments.capture(payment!.id, { amount: '1000' })),
        paid('/deferred'),
      ])
      if (!restarted) during.push(...answers)
    }
    await restart
    const refund = await inFlight
    expect([200, 503], JSON.stringify(refund)).toContain(refund.status)
    for (const answer of during) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, retryAfter: '1' })
      expect(answer.body.error).toMatch(/the Sandbox chain is restarting: retry in a moment/)
    }

    // The chain came back empty: its payments are the old chain's, refused as such; a new one is taken and moved.
    const old = await http(`/payments/${payment!.id}/void`, {})
    expect(old.status).toBe(409)
    expect(old.body.error).toMatch(/earlier Sandbox chain/)
    await stack.services.manager.fund(stack.buyer.address, 'usdc', '1')
    const fresh = await paid('/deferred')
    expect(fresh.status, JSON.stringify(fresh)).toBe(200)
    const next = (await paymentsOf()).find((row) => !row.old_chain)!
    expect((await sdk().payments.capture(next.id)).payment).toMatchObject({ captured: '10000', state: 'captured' })
    expect(await paymentState(next)).toEqual({ capturable: 0n, refundable: 10000n })
  })
})
