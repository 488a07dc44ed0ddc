/**
 * x402's `auth-capture` scheme (escrow payments) on svc's facilitator, end to end: an `@x402/express` seller whose
 * `x402ResourceServer` runs svc's `AuthCaptureServerScheme` on svc's facilitator over HTTP, paid by `@x402/fetch`
 * with `@x402/evm`'s `AuthCaptureEvmScheme` (startSandbox's buyer, which signs by svc's clock), by EIP-3009 and by
 * Permit2: a sync capture, a sync void (the handler answered 404), a sync partial capture (a settlement override)
 * with the void of the rest, a deferred hold captured in part by the seller then voided, a refund, a charge (the
 * authorization flow), and a reclaim by the buyer after `advanceTime` past the capture deadline; the chain's USDC
 * balances and the escrow's `paymentState` at each step.
 *
 * It needs svc's facilitator to serve auth-capture (issue 39 WP1): until its /supported lists the scheme, the suite
 * is skipped, decided at run time from that /supported.
 */
import { decodePaymentResponseHeader } from '@x402/core/http'
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { paymentMiddleware, setSettlementOverrides } from '@x402/express'
import express from 'express'
import { type Address, createPublicClient, createWalletClient, type Hex, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { buyerEscrowAbi } from '../../../core/auth-capture/buyer.js'
import { AuthCaptureServerScheme, authCaptureDeployment } from '../../../core/auth-capture/server-scheme.js'
import { listen, type Listening } from '../../../core/http.js'
import { startSandbox, type TestSandbox } from '../../../sdk/testing.js'
import { getJson, postJson } from '../../helpers/payments.js'

const sandbox: TestSandbox = await startSandbox()
const supported = (await getJson(`${sandbox.facilitatorUrl}/supported`)).body as {
  kinds: { scheme: string; network: string; extra?: Record<string, unknown> }[]
}
const kind = supported.kinds.find((entry) => entry.scheme === 'auth-capture' && entry.network === sandbox.network)
/** Whether svc's facilitator serves auth-capture (WP1): the suite runs as soon as it does. */
const facilitatorListsAuthCapture = kind !== undefined
if (!facilitatorListsAuthCapture) await sandbox.stop()

const price = 10_000n
const captureWindow = 3600
let seller: Listening
let scheme: AuthCaptureServerScheme
/** svc's clock ahead of the machine's, as the last advanceTime answered: the scheme writes deadlines by svc's clock. */
let offsetMs = 0
const receiver = privateKeyToAccount(generatePrivateKey())
const receiverAuthorizer = privateKeyToAccount(generatePrivateKey())
const escrow = authCaptureDeployment().escrow
const client = createPublicClient({ transport: http(sandbox.rpcUrl) })

beforeAll(async () => {
  if (!facilitatorListsAuthCapture) return
  const facilitator = new HTTPFacilitatorClient({ url: sandbox.facilitatorUrl })
  scheme = new AuthCaptureServerScheme({ receiverAuthorizer, facilitator, now: () => Date.now() + offsetMs })
  const resourceServer = new x402ResourceServer(facilitator).register(sandbox.network as never, scheme)
  const accept = (extra: Record<string, unknown>) => ({
    accepts: {
      scheme: 'auth-capture',
      network: sandbox.network as never,
      payTo: receiver.address,
      price: '$0.01',
      maxTimeoutSeconds: 300,
      extra: { captureDeadlineSeconds: captureWindow, refundDeadlineSeconds: 2 * captureWindow, ...extra },
    },
  })
  const routes: Record<string, ReturnType<typeof accept>> = {}
  for (const method of ['eip3009', 'permit2'] as const) {
    routes[`GET /${method}/sync`] = accept({ assetTransferMethod: method })
    routes[`GET /${method}/missing`] = accept({ assetTransferMethod: method })
    routes[`GET /${method}/metered`] = accept({ assetTransferMethod: method })
    routes[`GET /${method}/deferred`] = accept({ assetTransferMethod: method, captureMode: 'deferred' })
    routes[`GET /${method}/charge`] = accept({ assetTransferMethod: method, paymentFlow: 'authorization' })
  }
  const app = express()
  app.use(paymentMiddleware(routes, resourceServer))
  app.get('/:method/sync', (_req, res) => void res.json({ booked: true }))
  app.get('/:method/missing', (_req, res) => void res.status(404).json({ error: 'no such room' }))
  app.get('/:method/metered', (_req, res) => {
    setSettlementOverrides(res, { amount: '6000' })
    res.json({ used: 6000 })
  })
  app.get('/:method/deferred', (_req, res) => void res.json({ accepted: true }))
  app.get('/:method/charge', (_req, res) => {
    setSettlementOverrides(res, { amount: '7000' })
    res.json({ used: 7000 })
  })
  seller = await listen(app)
  // The receiver pays the gas of its refund approvals; the buyer's Permit2 payments need its Permit2 approval.
  expect((await postJson(`${sandbox.chainManagerUrl}/faucet`, { address: receiver.address })).status).toBe(200)
  const approval = await postJson(`${sandbox.chainManagerUrl}/faucet`, {
    address: sandbox.buyer.address,
    approve_permit2: true,
  })
  expect(approval.status).toBe(200)
})

afterAll(async () => {
  await seller?.close()
  if (facilitatorListsAuthCapture) await sandbox.stop()
})

const usdcBalance = (address: Address) =>
  client.readContract({
    address: sandbox.usdc.address as Address,
    abi: sandboxUsdcAbi,
    functionName: 'balanceOf',
    args: [address],
  })

async function balances() {
  return { buyer: await usdcBalance(sandbox.buyer.address), receiver: await usdcBalance(receiver.address) }
}

async function paymentState(hash: Hex) {
  const [collected, capturable, refundable] = await client.readContract({
    address: escrow,
    abi: buyerEscrowAbi,
    functionName: 'paymentState',
    args: [hash],
  })
  return { collected, capturable, refundable }
}

/** Pays `path` with startSandbox's buyer; answers the response, its PAYMENT-RESPONSE and the escrow payment's id. */
async function pay(path: string) {
  const before = sandbox.buyer.escrowPayments().length
  const response = await sandbox.buyer.fetch(`${seller.url}${path}`)
  const payments = sandbox.buyer.escrowPayments()
  expect(payments).toHaveLength(before + 1)
  const header = response.headers.get('payment-response')
  return {
    response,
    settlement: header ? decodePaymentResponseHeader(header) : undefined,
    hash: payments.at(-1)!.paymentInfoHash,
  }
}

/** The receiver lets the operator pull `amount` for a refund (svc's agreement for relayed refunds). */
async function approveRefund(amount: bigint) {
  const wallet = createWalletClient({ account: receiver, transport: http(sandbox.rpcUrl) })
  const hash = await wallet.writeContract({
    chain: null,
    address: sandbox.usdc.address as Address,
    abi: sandboxUsdcAbi,
    functionName: 'approve',
    args: [kind!.extra!.captureAuthorizer as Address, amount],
  })
  expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success')
}

describe.skipIf(!facilitatorListsAuthCapture)('auth-capture through an @x402/express seller on svc facilitator', () => {
  test('/supported names the operator and the escrow the scheme writes into its 402s', () => {
    expect(kind!.extra).toMatchObject({ captureAuthorizer: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) })
    expect((kind!.extra!.authCaptureEscrow as string).toLowerCase()).toBe(escrow.toLowerCase())
  })

  describe.each(['eip3009', 'permit2'] as const)('paid by %s', (method) => {
    test('sync, the handler answers 200: authorized then captured in the request; the receiver has the price', async () => {
      const start = await balances()
      const { response, settlement, hash } = await pay(`/${method}/sync`)
      expect(response.status).toBe(200)
      expect(await response.json()).toEqual({ booked: true })
      expect(settlement).toMatchObject({ success: true, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) })
      expect(await balances()).toEqual({ buyer: start.buyer - price, receiver: start.receiver + price })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: price })
    })

    test('sync, the handler answers 404: the hold is voided; the buyer keeps its money', async () => {
      const start = await balances()
      const { response, hash } = await pay(`/${method}/missing`)
      expect(response.status).toBe(404)
      expect(await balances()).toEqual(start)
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 0n })
    })

    test('sync with a settlement override: 6000 captured, the rest voided in the same request', async () => {
      const start = await balances()
      const { response, hash } = await pay(`/${method}/metered`)
      expect(response.status).toBe(200)
      expect(await balances()).toEqual({ buyer: start.buyer - 6000n, receiver: start.receiver + 6000n })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 6000n })
    })

    test('deferred: held; the seller captures 4000, voids the rest, refunds 1000', async () => {
      const start = await balances()
      const { response, settlement, hash } = await pay(`/${method}/deferred`)
      expect(response.status).toBe(200)
      expect(settlement).toMatchObject({ success: true })
      expect(await balances()).toEqual({ buyer: start.buyer - price, receiver: start.receiver })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: price, refundable: 0n })

      expect(await scheme.capture(hash, { amount: 4000n })).toMatchObject({ success: true })
      expect(await balances()).toEqual({ buyer: start.buyer - price, receiver: start.receiver + 4000n })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 6000n, refundable: 4000n })

      expect(await scheme.void(hash)).toMatchObject({ success: true })
      expect(await balances()).toEqual({ buyer: start.buyer - 4000n, receiver: start.receiver + 4000n })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 4000n })

      await approveRefund(1000n)
      expect(await scheme.refund(hash, { amount: 1000n })).toMatchObject({ success: true })
      expect(await balances()).toEqual({ buyer: start.buyer - 3000n, receiver: start.receiver + 3000n })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 3000n })
    })

    test('the authorization flow: verified before the handler, charged after it (7000 of 10000 by an override)', async () => {
      const start = await balances()
      const { response, settlement, hash } = await pay(`/${method}/charge`)
      expect(response.status).toBe(200)
      expect(settlement).toMatchObject({ success: true, amount: '7000' })
      expect(await balances()).toEqual({ buyer: start.buyer - 7000n, receiver: start.receiver + 7000n })
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 7000n })
    })

    test('deferred, never captured: after the capture deadline the buyer reclaims it', async () => {
      const start = await balances()
      const { hash } = await pay(`/${method}/deferred`)
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: price, refundable: 0n })
      await expect(sandbox.buyer.reclaim(hash)).rejects.toThrow()
      const time = await sandbox.advanceTime(captureWindow + 120)
      offsetMs = time.offset_seconds * 1000
      const reclaimed = await sandbox.buyer.reclaim(hash)
      expect(reclaimed).toEqual([{ paymentInfoHash: hash, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) }])
      expect(await balances()).toEqual(start)
      expect(await paymentState(hash)).toEqual({ collected: true, capturable: 0n, refundable: 0n })
      // A capture after the deadline is refused with the binding's reason; nothing moves.
      expect(await scheme.capture(hash)).toMatchObject({ success: false })
      expect(await balances()).toEqual(start)
    })
  })
})
