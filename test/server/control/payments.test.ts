/**
 * The control plane's escrow payments (x402 auth-capture): GET /payments (filters, CSV), GET /payments/{id}, and the
 * seller's capture, void and refund through svc's facilitator, signed by the key svc keeps for the seller. The
 * payments are authorized as the gateway will: the official client's payload settled by svc's facilitator, then
 * recorded with recordEscrowCollect. The chain's paymentState and the buyer's balance are read after each step; every
 * refusal of the plan's §3.3 is a 4xx with nothing sent, never a 500. One sandbox.
 */
import { type Address, erc20Abi, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import type { TestServer } from '../../helpers/control.js'
import { openTestEventStream } from '../../helpers/event-stream.js'
import { connectMcp, textOf } from '../../mcp/connect.js'
import {
  authorizeEscrow,
  type EscrowSandbox,
  escrowOnChain,
  receiverAuthorizerAddress,
  startEscrowSandbox,
} from '../../helpers/escrow-payments.js'

let chain: ChainServices
let t: TestServer
let seller: { jwt: string; userId: string; apiId: string; receiverAuthorizer: Address }
const dev = 'development'
const buyer = privateKeyToAccount(generatePrivateKey())
const payTo = privateKeyToAccount(generatePrivateKey()).address
const price = 10_000n
const prefix = 'invalid_auth_capture_evm_'

let sandbox: EscrowSandbox | undefined
beforeAll(async () => {
  sandbox = await startEscrowSandbox({ buyer: buyer.address, payTo, usdc: '1' })
  chain = sandbox.chain
  t = sandbox.t
  const { jwt, userId, apiId } = sandbox.seller
  seller = { jwt, userId, apiId, receiverAuthorizer: await receiverAuthorizerAddress(t, userId) }
}, 120_000)
const streams: (() => void)[] = []
afterAll(async () => {
  for (const close of streams) close()
  await sandbox?.stop()
})

const usdcOf = (address: Address) =>
  chain.sandboxChain.client.readContract({
    address: chain.sandboxChain.usdc.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })

const authorize = (captureMode: 'sync' | 'deferred' = 'deferred') =>
  authorizeEscrow({ t, chain, seller: { ...seller, payTo }, buyer, price, captureMode })

const onChain = (payment: { hash: Hex; escrow: Address }) => escrowOnChain(chain, payment)
/** A JWT with the development environment, or a development API key on the Sandbox's control host. */
type Auth = { jwt: string; environment?: string } | { key: string; host: 'development' }
const asKey = (key: string): Auth => ({ key, host: 'development' })
const post = (id: string, kind: string, body?: unknown, auth: Auth = { jwt: seller.jwt }) =>
  t.call(`/payments/${id}/${kind}`, {
    environment: 'jwt' in auth ? dev : undefined,
    ...auth,
    method: 'POST',
    body: body ?? {},
  })

/** The seller's escrow money of the last day (/stats/overview), as bigints; zeros without any. */
async function escrowStats() {
  const stats = await t.call('/stats/overview?days=1', { jwt: seller.jwt, environment: dev })
  expect(stats.status).toBe(200)
  const line = (stats.body.escrow ?? [])[0] ?? { held: '0', captured: '0', voided: '0', refunded: '0' }
  return {
    held: BigInt(line.held),
    captured: BigInt(line.captured),
    voided: BigInt(line.voided),
    refunded: BigInt(line.refunded),
  }
}

describe('escrow payments on the control plane', () => {
  test('list, filters, one payment with its transactions, CSV', async () => {
    const payment = await authorize()
    const list = await t.call('/payments', { jwt: seller.jwt, environment: dev })
    expect(list.status).toBe(200)
    const mine = list.body.payments.find((p: { id: string }) => p.id === payment.id)
    expect(mine).toMatchObject({
      api_id: seller.apiId,
      state: 'authorized',
      authorized: price.toString(),
      capturable: price.toString(),
      payment_info_hash: payment.hash,
      capture_mode: 'deferred',
      old_chain: false,
      delivered: true,
    })
    const filtered = await t.call(`/payments?api_id=${seller.apiId}&state=captured`, {
      jwt: seller.jwt,
      environment: dev,
    })
    expect(filtered.body.payments.map((p: { id: string }) => p.id)).not.toContain(payment.id)
    expect((await t.call('/payments?state=held', { jwt: seller.jwt, environment: dev })).status).toBe(400)
    expect((await t.call('/payments?api_id=api_nope', { jwt: seller.jwt, environment: dev })).status).toBe(404)

    const one = await t.call(`/payments/${payment.id}`, { jwt: seller.jwt, environment: dev })
    expect(one.status).toBe(200)
    expect(one.body.payment.id).toBe(payment.id)
    expect(one.body.transactions).toMatchObject([{ kind: 'authorize', amount: price.toString(), actor: 'gateway' }])

    const csv = await t.call('/payments?format=csv', { jwt: seller.jwt, environment: dev })
    expect(csv.status).toBe(200)
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="payments.csv"')
    const [header, ...rows] = String(csv.body).trim().split('\n')
    expect(header).toContain('id,api_id,endpoint_id,settlement_id')
    expect(header).toContain('capturable,refundable,state')
    expect(rows.some((row) => row.startsWith(`${payment.id},`))).toBe(true)
  })

  test('partial capture, void of the rest, refund: the chain, the buyer and the record agree; every refusal a 4xx', async () => {
    const statsBefore = await escrowStats()
    const payment = await authorize()
    const stream = await openTestEventStream(
      { baseUrl: t.server.controlUrl, headers: { authorization: `Bearer ${seller.jwt}`, 'x-svc-environment': dev } },
      streams,
    )
    const buyerBefore = await usdcOf(buyer.address)

    // Bad amounts: 400, nothing sent.
    for (const amount of ['0', '-5', '1.5', 'abc', 12])
      expect((await post(payment.id, 'capture', { amount })).body).toEqual({
        error: 'amount: must be a positive integer of atomic units',
      })
    expect((await post(payment.id, 'refund', {})).status).toBe(400)
    expect((await post(payment.id, 'void', { amount: '1' })).status).toBe(400)

    // Above the capturable: 409, nothing moved.
    const above = await post(payment.id, 'capture', { amount: '10001' })
    expect(above.status).toBe(409)
    expect(above.body.error).toMatch(new RegExp(`^the capture was refused: ${prefix}insufficient_authorization \\(`))
    expect(await onChain(payment)).toEqual({ capturable: price, refundable: 0n })

    const captured = await post(payment.id, 'capture', { amount: '4000' })
    expect(captured.status).toBe(200)
    expect(captured.body.payment).toMatchObject({ state: 'authorized', captured: '4000', capturable: '6000' })
    expect(captured.body.transaction).toMatchObject({ kind: 'capture', amount: '4000', actor: 'seller' })
    expect(await onChain(payment)).toEqual({ capturable: 6_000n, refundable: 4_000n })
    expect(await usdcOf(payTo)).toBe(4_000n)

    const voided = await post(payment.id, 'void')
    expect(voided.status).toBe(200)
    expect(voided.body.payment).toMatchObject({ state: 'captured', voided: '6000', capturable: '0' })
    expect(await onChain(payment)).toEqual({ capturable: 0n, refundable: 4_000n })
    expect(await usdcOf(buyer.address)).toBe(buyerBefore + 6_000n)

    const again = await post(payment.id, 'void')
    expect(again.status).toBe(409)
    expect(again.body.error).toMatch(new RegExp(`^the void was refused: ${prefix}zero_authorization \\(`))
    const captureNothing = await post(payment.id, 'capture')
    expect(captureNothing.body.error).toMatch(new RegExp(`${prefix}zero_authorization`))

    const tooMuch = await post(payment.id, 'refund', { amount: '4001' })
    expect(tooMuch.status).toBe(409)
    expect(tooMuch.body.error).toMatch(new RegExp(`^the refund was refused: ${prefix}refund_exceeds_capture \\(`))

    // The refund is funded by the pay-to address, whose approval svc makes for a Sandbox API.
    const refunded = await post(payment.id, 'refund', { amount: '1500' })
    expect(refunded.status).toBe(200)
    expect(refunded.body.payment).toMatchObject({ state: 'captured', refunded: '1500', refundable: '2500' })
    expect(await onChain(payment)).toEqual({ capturable: 0n, refundable: 2_500n })
    expect(await usdcOf(buyer.address)).toBe(buyerBefore + 7_500n)
    expect(await usdcOf(payTo)).toBe(2_500n)

    const history = await t.call(`/payments/${payment.id}`, { jwt: seller.jwt, environment: dev })
    expect(history.body.transactions.map((x: { kind: string; amount: string }) => `${x.kind} ${x.amount}`)).toEqual([
      'authorize 10000',
      'capture 4000',
      'void 6000',
      'refund 1500',
    ])

    // The live events of the seller's steps, in order, each with its escrow part.
    const events = await stream.next(3)
    expect(events.map((e) => [e.type, e.escrow?.moved, e.escrow?.state, e.status, e.charged])).toEqual([
      ['payment.captured', '4000', 'authorized', 200, true],
      ['payment.voided', '6000', 'captured', 200, true],
      ['payment.refunded', '1500', 'captured', 200, true],
    ])
    expect(events[0]).toMatchObject({
      method: 'GET',
      path: '/escrow/book',
      settlement_id: payment.settlementId,
      escrow: { id: payment.id, payment_info_hash: payment.hash, captured: '4000', refunded: '0' },
    })

    // Records out: the settlement's amount is captured − refunded, with its escrow part; the CSV's escrow columns;
    // the stats' escrow money.
    const settlements = await t.call('/settlements?limit=100', { jwt: seller.jwt, environment: dev })
    const settlement = settlements.body.settlements.find((x: { id: string }) => x.id === payment.settlementId)
    expect(settlement).toMatchObject({
      amount: '2500',
      escrow: {
        id: payment.id,
        state: 'captured',
        authorized: '10000',
        captured: '4000',
        voided: '6000',
        refunded: '1500',
        reclaimed: '0',
      },
    })
    const csv = String((await t.call('/settlements?format=csv', { jwt: seller.jwt, environment: dev })).body)
    expect(csv.split('\r\n')[0]).toMatch(/,delivered,escrow_state,authorized,captured,refunded$/)
    expect(csv.split('\r\n').find((line) => line.startsWith(`${payment.settlementId},`))).toMatch(
      /,2500,.*,true,captured,10000,4000,1500$/,
    )
    const statsAfter = await escrowStats()
    expect({
      held: statsAfter.held - statsBefore.held,
      captured: statsAfter.captured - statsBefore.captured,
      voided: statsAfter.voided - statsBefore.voided,
      refunded: statsAfter.refunded - statsBefore.refunded,
    }).toEqual({ held: 0n, captured: 4_000n, voided: 6_000n, refunded: 1_500n })
  })

  test('a full capture by default; one lifecycle call per payment at a time', async () => {
    const payment = await authorize()
    const [a, b] = await Promise.all([post(payment.id, 'capture'), post(payment.id, 'capture')])
    expect([a.status, b.status].sort()).toEqual([200, 409])
    const refused = a.status === 409 ? a : b
    expect(refused.body.error).toBe(
      'another capture, void or refund of this payment is in progress: retry when it is done',
    )
    expect(await onChain(payment)).toEqual({ capturable: 0n, refundable: price })
    const one = await t.call(`/payments/${payment.id}`, { jwt: seller.jwt, environment: dev })
    expect(one.body.payment).toMatchObject({ state: 'captured', captured: price.toString() })
  })

  test('unknown or another seller’s payment: 404; scopes: settlements:read reads, payments:write moves', async () => {
    const payment = await authorize()
    expect((await t.call('/payments/esc_nope', { jwt: seller.jwt, environment: dev })).body).toEqual({
      error: 'payment not found',
    })
    expect((await post('esc_nope', 'void')).status).toBe(404)
    const other = await t.signup()
    expect((await t.call(`/payments/${payment.id}`, { jwt: other.jwt, environment: dev })).status).toBe(404)
    expect((await post(payment.id, 'capture', {}, { jwt: other.jwt })).status).toBe(404)

    const reader = await t.createKey(seller.jwt, dev, ['settlements:read'])
    expect((await t.call('/payments', asKey(reader))).status).toBe(200)
    expect((await post(payment.id, 'capture', {}, asKey(reader))).status).toBe(403)
    const writer = await t.createKey(seller.jwt, dev, ['payments:write'])
    expect((await t.call('/payments', asKey(writer))).status).toBe(403)
    const captured = await post(payment.id, 'capture', { amount: '100' }, asKey(writer))
    expect(captured.status).toBe(200)
    expect(await onChain(payment)).toEqual({ capturable: price - 100n, refundable: 100n })

    // The MCP tools, with a key of both scopes: list, capture part, refund part, void the rest.
    const mcp = await connectMcp(t, await t.createKey(seller.jwt, dev, ['settlements:read', 'payments:write']))
    try {
      const listed = await mcp.call('svc_list_payments', { state: 'authorized' })
      expect((listed.structuredContent as any).payments.map((p: { id: string }) => p.id)).toContain(payment.id)
      const capture = await mcp.call('svc_capture_payment', { payment_id: payment.id, amount: '900' })
      expect(capture.isError).toBeFalsy()
      expect(capture.structuredContent).toMatchObject({ payment: { captured: '1000', capturable: '9000' } })
      expect((capture.content[0] as any).text).toMatch(new RegExp(`^Captured 900 of ${payment.id} \\(tx 0x`))
      const refund = await mcp.call('svc_refund_payment', { payment_id: payment.id, amount: '250' })
      expect(refund.structuredContent).toMatchObject({ payment: { refunded: '250' } })
      const voided = await mcp.call('svc_void_payment', { payment_id: payment.id })
      expect(voided.structuredContent).toMatchObject({ payment: { state: 'captured', voided: '9000' } })
      const again = await mcp.call('svc_void_payment', { payment_id: payment.id })
      expect(again.isError).toBe(true)
      expect(textOf(again)).toContain('invalid_auth_capture_evm_zero_authorization')
      expect(await onChain(payment)).toEqual({ capturable: 0n, refundable: 750n })
    } finally {
      await mcp.close()
    }
  })

  test('after the capture deadline: capture refused; after the refund deadline: refund refused; nothing sent', async () => {
    const payment = await authorize()
    expect((await post(payment.id, 'capture', { amount: '1000' })).status).toBe(200)
    const advance = await t.call('/dev/time/advance', { host: 'development', body: { seconds: 3_600 } })
    expect(advance.status).toBe(200)
    const late = await post(payment.id, 'capture', { amount: '1000' })
    expect(late.status).toBe(409)
    expect(late.body.error).toMatch(new RegExp(`^the capture was refused: ${prefix}capture_deadline_expired \\(`))
    expect((await post(payment.id, 'refund', { amount: '500' })).status).toBe(200)
    await t.call('/dev/time/advance', { host: 'development', body: { seconds: 3_700 } })
    const lateRefund = await post(payment.id, 'refund', { amount: '100' })
    expect(lateRefund.status).toBe(409)
    expect(lateRefund.body.error).toMatch(new RegExp(`^the refund was refused: ${prefix}refund_deadline_expired \\(`))
    expect(await onChain(payment)).toEqual({ capturable: price - 1_000n, refundable: 500n })
  })
})
