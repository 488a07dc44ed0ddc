/**
 * Escrow payments (x402 auth-capture) on the Base Sepolia twin through svc's gateway: a production API on
 * eip155:84532 whose facilitator is svc's own (SVC_FACILITATOR_URL = svc's facilitator, the only way a gateway API
 * pays on a twin: a development API takes only the Sandbox network), paid by the official `AuthCaptureEvmScheme`
 * client. The seller's deferred hold is captured in part, voided and refunded through the control plane, and a sync
 * payment is captured in the request, with the twin's balances, its escrow's `paymentState` and svc's records agreeing;
 * after the capture deadline a buyer's reclaim on the twin is recorded by the sweep.
 */
import { x402Client } from '@x402/core/client'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import { type Address, createWalletClient, type Hex, http, parseEther } from 'viem'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { buyerEscrowAbi, buyerEscrowPaymentOf, paymentInfoArgument } from '../../../core/auth-capture/buyer.js'
import { authCaptureDeployment } from '../../../core/auth-capture/server-scheme.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { type EscrowDeps, escrowJournalResolver, recordEscrowCollect } from '../../../server/escrow/index.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'
import { newAccount } from '../../helpers/payments.js'
import { addEndpoint, createApi, newSeller, type Seller, startUpstream } from '../../server/gateway/helpers.js'

const price = 10_000n
const escrow = authCaptureDeployment().escrow
let services: ChainServices
let twin: SandboxChain
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let seller: Seller
let gateway: string
let apiId: string
const buyer = newAccount()
const signed: Hex[] = []
let buyerFetch: typeof fetch
const prod = () => ({ jwt: seller.jwt, environment: 'production' as const })

beforeAll(async () => {
  services = await startChainServices({ twins: ['base-sepolia'] })
  twin = services.twins[0]!.chain
  t = await startTestServer({ chain: services, productionFacilitatorUrl: services.facilitatorUrl })
  upstream = await startUpstream()
  await twin.usdcFunder.fund(buyer.address, 1_000_000n)
  seller = await newSeller(t)
  const api = await createApi(t, seller, upstream.url, 'production')
  gateway = api.gateway
  apiId = api.id
  const accept = (extra: Record<string, unknown>) => ({
    scheme: 'auth-capture',
    network: twin.network,
    asset: twin.usdc.address,
    amount: String(price),
    max_timeout_seconds: 300,
    extra: { name: twin.usdc.name, version: twin.usdc.version, ...extra },
  })
  for (const [path, extra] of [
    ['/weather/deferred', { captureMode: 'deferred', captureDeadlineSeconds: 3600 }],
    ['/weather/sync', {}],
  ] as const)
    await addEndpoint(t, seller, api.id, { method: 'GET', path_pattern: path, accepts: [accept(extra)] }, 'production')
  const payer = new x402Client().register(twin.network as never, new AuthCaptureEvmScheme(buyer))
  payer.onAfterPaymentCreation(async ({ paymentPayload }) => {
    const made = buyerEscrowPaymentOf(paymentPayload as never)
    if (made) signed.push(made.paymentInfoHash.toLowerCase() as Hex)
  })
  buyerFetch = wrapFetchWithPayment(localFetch, payer)
}, 120_000)

afterAll(async () => {
  await t?.stop()
  await upstream?.stop()
  await services?.stop()
})

const usdc = (address: string) =>
  twin.client.readContract({
    address: twin.usdc.address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address as Address],
  })
const balances = async () => ({ buyer: await usdc(buyer.address), seller: await usdc(seller.payTo) })
async function paymentState(hash: Hex) {
  const [, capturable, refundable] = await twin.client.readContract({
    address: escrow,
    abi: buyerEscrowAbi,
    functionName: 'paymentState',
    args: [hash],
  })
  return { capturable, refundable }
}
async function pay(path: string) {
  const response = await buyerFetch(`${gateway}${path}`)
  expect(response.status, await response.text()).toBe(200)
  const hash = signed.at(-1)!
  const { body } = await t.call('/payments', prod())
  const payment = body.payments.find((row: { payment_info_hash: string }) => row.payment_info_hash === hash)
  expect(payment).toMatchObject({ environment: 'production', network: twin.network })
  return { hash, id: payment.id as string }
}
const move = (id: string, kind: string, body: Record<string, string> = {}) =>
  t.call(`/payments/${id}/${kind}`, { ...prod(), body })

test('a deferred hold on the twin: the seller captures part, voids the rest and refunds, through the control plane', {
  timeout: 120_000,
}, async () => {
  const start = await balances()
  const { hash, id } = await pay('/weather/deferred')
  expect(await balances()).toEqual({ buyer: start.buyer - price, seller: start.seller })
  expect(await paymentState(hash)).toEqual({ capturable: price, refundable: 0n })

  const captured = await move(id, 'capture', { amount: '6000' })
  expect(captured.status, JSON.stringify(captured.body)).toBe(200)
  expect(captured.body.payment).toMatchObject({ state: 'authorized', captured: '6000', capturable: '4000' })
  expect(await paymentState(hash)).toEqual({ capturable: 4_000n, refundable: 6_000n })
  expect(await usdc(seller.payTo)).toBe(start.seller + 6_000n)

  const voided = await move(id, 'void')
  expect(voided.status, JSON.stringify(voided.body)).toBe(200)
  expect(voided.body.payment).toMatchObject({ state: 'captured', captured: '6000', voided: '4000', capturable: '0' })
  expect(await paymentState(hash)).toEqual({ capturable: 0n, refundable: 6_000n })
  expect(await usdc(buyer.address)).toBe(start.buyer - 6_000n)

  const refunded = await move(id, 'refund', { amount: '2000' })
  expect(refunded.status, JSON.stringify(refunded.body)).toBe(200)
  expect(refunded.body.payment).toMatchObject({ state: 'captured', refunded: '2000', refundable: '4000' })
  expect(await paymentState(hash)).toEqual({ capturable: 0n, refundable: 4_000n })
  expect(await balances()).toEqual({ buyer: start.buyer - 4_000n, seller: start.seller + 4_000n })

  // A second void: the binding's reason, nothing moved.
  const again = await move(id, 'void')
  expect(again.status).toBe(409)
  expect(again.body.error).toContain('invalid_auth_capture_evm_zero_authorization')
  const shown = await t.call(`/payments/${id}`, prod())
  expect(shown.body.transactions.map((row: { kind: string; actor: string }) => [row.kind, row.actor])).toEqual([
    ['authorize', 'gateway'],
    ['capture', 'seller'],
    ['void', 'seller'],
    ['refund', 'seller'],
  ])
  const settlement = (await t.call('/settlements', prod())).body.settlements.find(
    (row: { id: string }) => row.id === shown.body.payment.settlement_id,
  )
  expect(settlement).toMatchObject({ amount: '4000' })
})

test('a sync payment on the twin is captured in the request; a crash before its answer is recovered from the twin', {
  timeout: 60_000,
}, async () => {
  const start = await balances()
  const { hash, id } = await pay('/weather/sync')
  expect(await balances()).toEqual({ buyer: start.buyer - price, seller: start.seller + price })
  expect(await paymentState(hash)).toEqual({ capturable: 0n, refundable: price })
  const payment = (await t.call(`/payments/${id}`, prod())).body.payment
  expect(payment).toMatchObject({ state: 'captured', captured: '10000', delivered: true })

  // Its journal row as a crash between the collect's record and the answer would have left it: recovery reads the
  // twin (no --rpc names it), finds the collect and marks the answer undelivered.
  const row = {
    id: 'jrn_twin_crash',
    environment: 'production',
    network: twin.network,
    chain_epoch: '',
    settlement_id: payment.settlement_id,
    state: 'settling',
    valid_before: null,
    method: payment.method,
    path: payment.path,
    escrow: JSON.stringify({
      kind: 'authorize',
      paymentInfoHash: hash,
      paymentInfo: payment.payment_info,
      saltNonce: payment.salt_nonce,
      captureMode: 'sync',
      escrow: payment.escrow,
      receiverAuthorizer: payment.receiver_authorizer,
    }),
  }
  const deps = { db: t.server.database.db, chain: services, clock: services.clock } as unknown as EscrowDeps
  const logged: string[] = []
  expect(await escrowJournalResolver()(deps, row as never, (line) => logged.push(line)), logged.join('\n')).toBe(
    'undelivered',
  )
  expect((await t.call(`/payments/${id}`, prod())).body.payment).toMatchObject({
    state: 'captured',
    captured: '10000',
    delivered: false,
  })
})

test('a hold left on the twin is reclaimed by the buyer after the capture deadline, and recorded', {
  timeout: 120_000,
}, async () => {
  const start = await balances()
  const { hash, id } = await pay('/weather/deferred')
  expect(await usdc(buyer.address)).toBe(start.buyer - price)
  // svc time advance: svc's clock and every chain's time move together.
  const advanced = await t.call('/dev/time/advance', { host: 'development', body: { seconds: 7200 } })
  expect(advanced.status, JSON.stringify(advanced.body)).toBe(200)
  const shown = (await t.call(`/payments/${id}`, prod())).body.payment
  await twin.testClient.setBalance({ address: buyer.address, value: parseEther('1') })
  const wallet = createWalletClient({ account: buyer, chain: twin.chain, transport: http(twin.rpcUrl) })
  const sent = await wallet.writeContract({
    address: escrow,
    abi: buyerEscrowAbi,
    functionName: 'reclaim',
    args: [paymentInfoArgument(shown.payment_info)],
  })
  expect((await twin.client.waitForTransactionReceipt({ hash: sent })).status).toBe('success')
  expect(await paymentState(hash)).toEqual({ capturable: 0n, refundable: 0n })
  expect(await usdc(buyer.address)).toBe(start.buyer)
  await vi.waitFor(
    async () =>
      expect((await t.call(`/payments/${id}`, prod())).body.payment).toMatchObject({
        state: 'reclaimed',
        reclaimed: '10000',
      }),
    { timeout: 30_000, interval: 200 },
  )
})

test("a production payment on a chain svc does not run, or held by another facilitator's operator, is refused (409) saying why", async () => {
  const { body } = await t.call('/payments', prod())
  const paid = body.payments.find((row: { capture_mode: string }) => row.capture_mode === 'deferred')
  const elsewhere = async (network: string, operator: string) => {
    const { payment } = await recordEscrowCollect(
      t.server.database.db,
      {
        ...Object.fromEntries(
          [
            'endpoint_id',
            'environment',
            'asset',
            'payer',
            'pay_to',
            'method',
            'path',
            'flow',
            'capture_mode',
            'transfer_method',
            'escrow',
            'receiver_authorizer',
            'salt_nonce',
            'pre_approval_expiry',
            'capture_deadline',
            'refund_deadline',
          ].map((column) => [column, paid[column]]),
        ),
        payment_info: JSON.stringify(paid.payment_info),
        payment_info_hash: `0x${Math.random().toString(16).slice(2).padEnd(64, '0')}`,
        user_id: seller.userId,
        api_id: apiId,
        chain_epoch: '',
        network,
        operator,
        delivered: 1,
      } as never,
      { kind: 'authorize', amount: '10000', transaction: `0x${'1'.repeat(64)}`, actor: 'gateway' },
    )
    return payment.id
  }
  const onBase = await move(await elsewhere('eip155:8453', paid.operator), 'capture')
  expect(onBase.status).toBe(409)
  expect(onBase.body.error).toBe(
    'the capture was refused: svc moves escrow payments on the chains it runs only (the Sandbox chain and its twins, svc up --twin); this one is on eip155:8453: move it through the facilitator that holds it',
  )
  const other = `0x${'2'.repeat(40)}`
  const byOther = await move(await elsewhere(twin.network, other), 'void')
  expect(byOther.status).toBe(409)
  expect(byOther.body.error).toBe(
    `the void was refused: it is held by another facilitator's operator (${other}), not svc's: move it through that facilitator`,
  )
})
