/**
 * Issue 39 (WP4): escrow payments (x402 auth-capture) through svc's gateway, paid by the official client with
 * `AuthCaptureEvmScheme` (startSandbox's buyer's scheme; the gateway stack, whose database the test reads). Sync: an upstream 200 captures the hold, a 404 voids it, a Settlement-Overrides
 * amount captures that much and voids the rest; deferred: the hold stays for the seller; the authorization flow
 * charges once. At each step the chain's balances and `paymentState`, svc's escrow rows, `/settlements` and the
 * payment.* events agree, and the settlement journal's row is closed.
 */
import { once } from 'node:events'
import { createServer, type Server } from 'node:http'
import { x402Client } from '@x402/core/client'
import { decodePaymentResponseHeader } from '@x402/core/http'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createWalletClient, type Hex, http } from 'viem'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { buyerEscrowAbi, buyerEscrowPaymentOf, paymentInfoArgument } from '../../../core/auth-capture/buyer.js'
import { authCaptureDeployment } from '../../../core/auth-capture/server-scheme.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { deploymentOfEscrow } from '../../../core/auth-capture/deployments.js'
import { buildCapture } from '../../../core/auth-capture/lifecycle-payloads.js'
import { loadInstallSecrets } from '../../../server/data-dir/secrets.js'
import { receiverAuthorizerOf, requirementsOfPayment } from '../../../server/escrow/index.js'
import { postJson } from '../../helpers/payments.js'
import { escrowDb } from '../../../server/db/index.js'
import type { PaymentEvent } from '../../../sdk/types.js'
import { openTestEventStream, type TestEventStream } from '../../helpers/event-stream.js'
import { serverUrl } from '../../helpers/seller-api.js'
import { addEndpoint, createApi, type GatewayStack, newSeller, type Seller, startGatewayStack } from './helpers.js'

const price = 10_000n
let stack: GatewayStack
let seller: Seller
let upstream: Server
let gatewayUrl: string
let stream: TestEventStream
const events: PaymentEvent[] = []
const escrow = authCaptureDeployment().escrow
/** The official client with `@x402/evm`'s AuthCaptureEvmScheme (as startSandbox's buyer), keeping what it signs. */
let buyerFetch: typeof fetch
const signed: Hex[] = []
/** The settlement journal's escrow parts the upstream saw while a /sync request was in flight. */
const inFlight: { escrow: string | null }[] = []

beforeAll(async () => {
  upstream = createServer(async (req, res) => {
    // While the upstream works, the collect's journal row is open with its escrow part (what recovery reads).
    if (req.url?.startsWith('/sync'))
      inFlight.push(
        ...(await escrowDb(stack.t.server.database.db).selectFrom('settlement_journal').select('escrow').execute()),
      )
    res.setHeader('content-type', 'application/json')
    if (req.url?.startsWith('/missing')) return void res.writeHead(404).end('{"error":"no such room"}')
    if (req.url?.startsWith('/metered')) res.setHeader('settlement-overrides', '{"amount":"6000"}')
    if (req.url?.startsWith('/charge')) res.setHeader('settlement-overrides', '{"amount":"7000"}')
    res.end('{"ok":true}')
  })
  upstream.listen(0, '127.0.0.1')
  await once(upstream, 'listening')
  stack = await startGatewayStack()
  seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, serverUrl(upstream))
  gatewayUrl = api.gateway
  const accept = (extra: Record<string, unknown>) => ({
    scheme: 'auth-capture',
    network: stack.services.sandboxChain.network,
    asset: stack.services.sandboxChain.usdc.address,
    amount: String(price),
    max_timeout_seconds: 300,
    extra,
  })
  for (const [path, extra] of [
    ['/sync', {}],
    ['/missing', {}],
    ['/metered', { captureMode: 'sync' }],
    ['/deferred', { captureMode: 'deferred' }],
    ['/charge', { paymentFlow: 'authorization' }],
  ] as const)
    await addEndpoint(stack.t, seller, api.id, { method: 'GET', path_pattern: path, accepts: [accept(extra)] })
  const payer = new x402Client().register(
    stack.services.sandboxChain.network as never,
    new AuthCaptureEvmScheme(stack.buyer),
  )
  payer.setSpendControls({
    allowedAssets: [
      {
        network: stack.services.sandboxChain.network as never,
        asset: stack.services.sandboxChain.usdc.address,
        maxAmountPerPayment: '10000000',
      },
    ],
  })
  payer.onAfterPaymentCreation(async ({ paymentPayload }) => {
    const made = buyerEscrowPaymentOf(paymentPayload as never)
    if (made) signed.push(made.paymentInfoHash.toLowerCase() as Hex)
  })
  buyerFetch = wrapFetchWithPayment(localFetch, payer)
  stream = await openTestEventStream({
    baseUrl: stack.t.server.sandboxControlUrl,
    headers: { authorization: `Bearer ${seller.jwt}`, 'x-svc-environment': 'development' },
  })
  void (async () => {
    for (;;) events.push(...(await stream.next(1)))
  })().catch(() => {})
})

afterAll(async () => {
  stream?.close()
  await stack?.stop()
  upstream?.close()
})

const client = () => stack.services.sandboxChain.client
const usdc = (address: string) =>
  client().readContract({
    address: stack.services.sandboxChain.usdc.address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address as Address],
  })
const balances = async () => ({ buyer: await usdc(stack.buyer.address), seller: await usdc(seller.payTo) })
async function paymentState(hash: Hex) {
  const [collected, capturable, refundable] = await client().readContract({
    address: escrow,
    abi: buyerEscrowAbi,
    functionName: 'paymentState',
    args: [hash],
  })
  return { collected, capturable, refundable }
}

/** Pays `path`; answers the response, its PAYMENT-RESPONSE and the payment's hash. */
async function pay(path: string) {
  const before = signed.length
  const response = await buyerFetch(`${gatewayUrl}${path}`)
  await response.arrayBuffer()
  expect(signed).toHaveLength(before + 1)
  const header = response.headers.get('payment-response')
  return {
    response,
    receipt: header ? decodePaymentResponseHeader(header) : undefined,
    hash: signed.at(-1)!,
  }
}

/** svc's record of a payment: its row, its transactions (in order), its settlement. */
async function recordOf(hash: Hex) {
  const db = escrowDb(stack.t.server.database.db)
  const payment = await db
    .selectFrom('escrow_payments')
    .selectAll()
    .where('payment_info_hash', '=', hash)
    .executeTakeFirstOrThrow()
  const transactions = await db
    .selectFrom('escrow_transactions')
    .select(['kind', 'amount', 'actor', 'transaction'])
    .where('escrow_payment_id', '=', payment.id)
    .orderBy('created_at')
    .execute()
  const settlement = await db
    .selectFrom('settlements')
    .select(['id', 'amount', 'escrow_id', 'delivered'])
    .where('id', '=', payment.settlement_id!)
    .executeTakeFirstOrThrow()
  return { payment, transactions, settlement }
}

/** The payment.* events of one payment, once `count` of them arrived. */
async function eventsOf(hash: Hex, count: number) {
  return vi.waitFor(
    () => {
      const mine = events.filter((event) => event.escrow?.payment_info_hash === hash)
      expect(mine.length).toBeGreaterThanOrEqual(count)
      return mine
    },
    { timeout: 10_000, interval: 50 },
  )
}

async function openJournalRows() {
  return (await stack.t.server.database.db.selectFrom('settlement_journal').select('id').execute()).length
}

/** The settlement as `GET /settlements` lists it. */
async function listedSettlement(id: string) {
  const { status, body } = await stack.t.call('/settlements?limit=100', { jwt: seller.jwt, environment: 'development' })
  expect(status).toBe(200)
  return (body.settlements as { id: string; amount: string }[]).find((row) => row.id === id)
}

describe('auth-capture through the gateway', () => {
  test('the 402 offers auth-capture with the seller’s receiver authorizer and svc’s operator', async () => {
    const probe = await localFetch(`${gatewayUrl}/sync`)
    expect(probe.status).toBe(402)
    const required = JSON.parse(await probe.text()) as { accepts: { scheme: string; extra: Record<string, unknown> }[] }
    expect(required.accepts[0]).toMatchObject({
      scheme: 'auth-capture',
      extra: { operatorType: 'delegated', paymentFlow: 'escrow', captureMode: 'sync', authCaptureEscrow: escrow },
    })
    expect(required.accepts[0]!.extra.receiverAuthorizer).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect(required.accepts[0]!.extra.captureDeadline).toBe(
      Math.ceil((Number(required.accepts[0]!.extra.captureDeadline) - 1) / 60) * 60,
    )
  })

  test('sync, upstream 200: held, then captured in the same request', async () => {
    const start = await balances()
    const { response, receipt, hash } = await pay('/sync')
    expect(response.status).toBe(200)
    expect(receipt).toMatchObject({ success: true, amount: String(price) })
    expect(await balances()).toEqual({ buyer: start.buyer - price, seller: start.seller + price })
    expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: price })
    const { payment, transactions, settlement } = await recordOf(hash)
    expect(payment).toMatchObject({ state: 'captured', authorized: '10000', captured: '10000', capturable: '0' })
    expect(payment).toMatchObject({ delivered: 1, capture_mode: 'sync', flow: 'escrow' })
    expect(transactions.map((row) => [row.kind, row.amount, row.actor])).toEqual([
      ['authorize', '10000', 'gateway'],
      ['capture', '10000', 'gateway'],
    ])
    expect(transactions[1]!.transaction).toBe(receipt!.transaction.toLowerCase())
    expect(settlement).toMatchObject({ amount: '10000', escrow_id: payment.id })
    expect(await listedSettlement(settlement.id)).toMatchObject({ amount: '10000' })
    const told = await eventsOf(hash, 2)
    expect(told.map((event) => [event.type, event.amount, event.escrow?.state, event.escrow?.moved])).toEqual([
      ['payment.authorized', '10000', 'authorized', '10000'],
      ['payment.captured', '10000', 'captured', '10000'],
    ])
    expect(told[1]).toMatchObject({ charged: true, settlement_id: settlement.id, path: '/sync' })
    expect(inFlight.map((row) => JSON.parse(row.escrow ?? 'null'))).toEqual([
      expect.objectContaining({ kind: 'authorize', paymentInfoHash: hash, captureMode: 'sync', escrow }),
    ])
    await vi.waitFor(async () => expect(await openJournalRows()).toBe(0), { timeout: 5000, interval: 50 })
  })

  test('sync, upstream 404: the hold is voided, the 404 passed through, nothing charged', async () => {
    const start = await balances()
    const { response, hash } = await pay('/missing')
    expect(response.status).toBe(404)
    expect(await balances()).toEqual(start)
    expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 0n })
    const { payment, transactions, settlement } = await recordOf(hash)
    expect(payment).toMatchObject({ state: 'voided', captured: '0', voided: '10000' })
    expect(transactions.map((row) => [row.kind, row.amount])).toEqual([
      ['authorize', '10000'],
      ['void', '10000'],
    ])
    expect(settlement.amount).toBe('0')
    expect(await listedSettlement(settlement.id)).toMatchObject({ amount: '0' })
    const told = await eventsOf(hash, 2)
    expect(told.map((event) => [event.type, event.escrow?.state])).toEqual([
      ['payment.authorized', 'authorized'],
      ['payment.voided', 'voided'],
    ])
    expect(await openJournalRows()).toBe(0)
  })

  test("sync, the upstream's Settlement-Overrides: 6000 captured, the other 4000 voided", async () => {
    const start = await balances()
    const { response, receipt, hash } = await pay('/metered')
    expect(response.status).toBe(200)
    expect(response.headers.get('settlement-overrides')).toBeNull()
    expect(receipt).toMatchObject({ success: true, amount: '6000' })
    expect(await balances()).toEqual({ buyer: start.buyer - 6000n, seller: start.seller + 6000n })
    expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 6000n })
    const { payment, transactions, settlement } = await recordOf(hash)
    expect(payment).toMatchObject({ state: 'captured', captured: '6000', voided: '4000' })
    expect(transactions.map((row) => [row.kind, row.amount])).toEqual([
      ['authorize', '10000'],
      ['capture', '6000'],
      ['void', '4000'],
    ])
    expect(settlement.amount).toBe('6000')
    expect(await listedSettlement(settlement.id)).toMatchObject({ amount: '6000' })
    const told = await eventsOf(hash, 3)
    expect(told.map((event) => [event.type, event.escrow?.moved, event.escrow?.state])).toEqual([
      ['payment.authorized', '10000', 'authorized'],
      ['payment.captured', '6000', 'authorized'],
      ['payment.voided', '4000', 'captured'],
    ])
    expect(await openJournalRows()).toBe(0)
  })

  test('deferred: the hold stays for the seller, the answer carries the hold’s receipt', async () => {
    const start = await balances()
    const { response, receipt, hash } = await pay('/deferred')
    expect(response.status).toBe(200)
    expect(receipt).toMatchObject({ success: true })
    expect(await balances()).toEqual({ buyer: start.buyer - price, seller: start.seller })
    expect(await paymentState(hash)).toEqual({ collected: true, capturable: price, refundable: 0n })
    const { payment, transactions, settlement } = await recordOf(hash)
    expect(payment).toMatchObject({ state: 'authorized', capturable: '10000', capture_mode: 'deferred', delivered: 1 })
    expect(transactions.map((row) => row.kind)).toEqual(['authorize'])
    expect(settlement.amount).toBe('0')
    const told = await eventsOf(hash, 1)
    expect(told.map((event) => event.type)).toEqual(['payment.authorized'])
    expect(await openJournalRows()).toBe(0)
  })

  test('authorization flow: verified, then one charge of the upstream’s 7000 after its answer', async () => {
    const start = await balances()
    const { response, receipt, hash } = await pay('/charge')
    expect(response.status).toBe(200)
    expect(receipt).toMatchObject({ success: true, amount: '7000' })
    expect(await balances()).toEqual({ buyer: start.buyer - 7000n, seller: start.seller + 7000n })
    expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 7000n })
    const { payment, transactions, settlement } = await recordOf(hash)
    expect(payment).toMatchObject({ state: 'charged', flow: 'authorization', captured: '7000', capture_mode: null })
    expect(transactions.map((row) => [row.kind, row.amount])).toEqual([['charge', '7000']])
    expect(settlement.amount).toBe('7000')
    expect(await listedSettlement(settlement.id)).toMatchObject({ amount: '7000' })
    const told = await eventsOf(hash, 1)
    expect(told.map((event) => [event.type, event.escrow?.state, event.charged])).toEqual([
      ['payment.captured', 'charged', true],
    ])
    expect(await openJournalRows()).toBe(0)
  })

  test("svc's facilitator settles a capture whose requirements an override lowered, against the amount the buyer signed", async () => {
    // A deferred hold of 10000; the seller captures 4000 with the requirements' amount lowered to it (as x402's
    // resource server sends an overridden settle): the PaymentInfo is checked against the accepted 10000.
    const { hash } = await pay('/deferred')
    const { payment } = await recordOf(hash)
    const secrets = loadInstallSecrets(stack.t.server.dataDir)
    const signer = await receiverAuthorizerOf({ db: stack.t.server.database.db, secrets }, seller.userId)
    const capture = await buildCapture(
      {
        chainId: stack.services.sandboxChain.chainId,
        deployment: deploymentOfEscrow(payment.escrow)!,
        paymentInfo: JSON.parse(payment.payment_info),
        saltNonce: payment.salt_nonce as Hex,
      },
      { amount: 4000n, expectedCapturableAmount: price, expectedRefundableAmount: 0n },
      signer,
    )
    const signedFor = requirementsOfPayment(payment, stack.services.sandboxChain.usdc)
    const settled = await postJson(`${stack.services.facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: { x402Version: 2, accepted: signedFor, payload: capture },
      paymentRequirements: { ...signedFor, amount: '4000' },
    })
    expect(settled.body).toMatchObject({ success: true, amount: '4000' })
    expect(await paymentState(hash)).toEqual({ collected: true, capturable: 6000n, refundable: 4000n })
  })

  test("the offer's deadlines follow svc's clock: rebuilt each grid step, and a payment of the new offer captures", async () => {
    const deadlines = async () => {
      const probe = await localFetch(`${gatewayUrl}/sync`)
      const required = JSON.parse(await probe.text()) as { accepts: { extra: Record<string, number> }[] }
      return {
        capture: required.accepts[0]!.extra.captureDeadline!,
        refund: required.accepts[0]!.extra.refundDeadline!,
      }
    }
    const before = await deadlines()
    const advanced = await stack.t.call('/dev/time/advance', { host: 'development', body: { seconds: 180 } })
    expect(advanced.status).toBe(200)
    const after = await deadlines()
    expect(after.capture - before.capture).toBeGreaterThanOrEqual(120)
    expect(after.capture - before.capture).toBeLessThanOrEqual(240)
    expect(after.refund - after.capture).toBe(before.refund - before.capture)
    const { response, hash } = await pay('/sync')
    expect(response.status).toBe(200)
    expect((await recordOf(hash)).payment).toMatchObject({ state: 'captured', capture_deadline: after.capture })
  })

  test("a buyer's reclaim after the capture deadline is recorded by the sweep and told as payment.reclaimed", async () => {
    const { hash } = await pay('/deferred')
    const before = await balances()
    // Past the capture deadline (the default 1 day, on the 60 s grid), the buyer takes its hold back itself.
    const advanced = await stack.t.call('/dev/time/advance', { host: 'development', body: { seconds: 86_400 + 120 } })
    expect(advanced.status).toBe(200)
    const { payment } = await recordOf(hash)
    await stack.services.manager.fund(stack.buyer.address, 'eth', '1')
    const wallet = createWalletClient({ account: stack.buyer, transport: http(stack.services.rpcUrl) })
    const sent = await wallet.writeContract({
      chain: null,
      address: escrow,
      abi: buyerEscrowAbi,
      functionName: 'reclaim',
      args: [paymentInfoArgument(JSON.parse(payment.payment_info))],
    })
    expect((await client().waitForTransactionReceipt({ hash: sent, pollingInterval: 50 })).status).toBe('success')
    expect(await balances()).toEqual({ buyer: before.buyer + price, seller: before.seller })
    const [told] = await vi.waitFor(
      () => {
        const reclaimed = events.filter(
          (event) => event.type === 'payment.reclaimed' && event.escrow?.payment_info_hash === hash,
        )
        expect(reclaimed).toHaveLength(1)
        return reclaimed
      },
      { timeout: 15_000, interval: 100 },
    )
    expect(told).toMatchObject({ transaction: sent.toLowerCase(), path: '/deferred', charged: false })
    expect(told!.escrow).toMatchObject({ state: 'reclaimed', moved: '10000' })
    expect((await recordOf(hash)).payment).toMatchObject({ state: 'reclaimed', reclaimed: '10000', capturable: '0' })
  })
})
