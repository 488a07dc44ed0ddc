/**
 * `svc payments`: the seller's escrow payments (x402 auth-capture) listed, shown, captured in part, voided and
 * refunded, with their exit codes and one-line messages; and the buyer's `svc payments reclaim` of what `svc pay` kept,
 * refused before the capture deadline, done after `svc time advance`. One sandbox; the seller's payments are
 * authorized as the gateway does (svc's facilitator, then recordEscrowCollect), the buyer's through `svc pay` to an
 * @x402/express seller.
 */
import { HTTPFacilitatorClient, x402ResourceServer } from '@x402/core/server'
import { paymentMiddleware } from '@x402/express'
import express from 'express'
import { type Address, erc20Abi } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../chain/services.js'
import { AuthCaptureServerScheme } from '../../core/auth-capture/server-scheme.js'
import { listen } from '../../core/http.js'
import type { TestServer } from '../helpers/control.js'
import {
  authorizeEscrow,
  type EscrowSandbox,
  type EscrowSeller,
  escrowOnChain,
  startEscrowSandbox,
} from '../helpers/escrow-payments.js'
import { type Cli, createCli } from './harness.js'

let chain: ChainServices
let t: TestServer
let cli: Cli
let seller: EscrowSeller
let sandbox: EscrowSandbox | undefined
const buyerKey = generatePrivateKey()
const buyer = privateKeyToAccount(buyerKey)
const payTo = privateKeyToAccount(generatePrivateKey()).address
const price = 10_000n

beforeAll(async () => {
  sandbox = await startEscrowSandbox({ buyer: buyer.address, payTo })
  ;({ chain, t, seller } = sandbox)
  cli = createCli({ SVC_BASE_URL: t.server.sandboxControlUrl, SVC_JWT: sandbox.seller.jwt })
}, 120_000)
afterAll(async () => {
  await sandbox?.stop()
})

const usdcOf = (address: Address) =>
  chain.sandboxChain.client.readContract({
    address: chain.sandboxChain.usdc.address,
    abi: erc20Abi,
    functionName: 'balanceOf',
    args: [address],
  })

describe('svc payments (the seller)', () => {
  test('list, show, capture --amount, void, refund --amount: one line each; refusals exit 1, usage errors 2', async () => {
    const payment = await authorizeEscrow({ t, chain, seller, buyer, price })

    const list = await cli.ok(['payments'])
    expect(list).toMatch(/^PAYMENT\s+REQUEST\s+PAYER\s+MODE\s+ESCROW\s+CAPTURE BY$/m)
    expect(list).toContain(payment.id)
    expect(list).toMatch(/GET \/escrow\/book .* deferred\s+held 0\.01 /)
    expect(
      (await cli.json(['payments', 'list', '--state', 'authorized'])).payments.map((p: { id: string }) => p.id),
    ).toContain(payment.id)
    expect(await cli.ok(['payments', '--csv'])).toMatch(/^id,api_id,endpoint_id,settlement_id,/)
    expect(await cli.ok(['payments', 'show', payment.id])).toMatch(/state\s+held 0\.01/)

    const captured = await cli.run(['payments', 'capture', payment.id, '--amount', '0.004'])
    expect(captured).toMatchObject({ code: 0, stderr: '' })
    expect(captured.stdout).toMatch(
      new RegExp(
        `^captured 0\\.004 USDC of ${payment.id}: captured 0\\.004/0\\.01, held 0\\.006 \\(0x[0-9a-f]{64}\\)\\n$`,
      ),
    )
    const tooMuch = await cli.run(['payments', 'capture', payment.id, '--amount', '1'])
    expect(tooMuch.code).toBe(1)
    expect(tooMuch.stderr).toMatch(/invalid_auth_capture_evm_insufficient_authorization/)
    expect(tooMuch.stderr.trim().split('\n')).toHaveLength(1)

    const voided = await cli.run(['payments', 'void', payment.id])
    expect(voided).toMatchObject({ code: 0, stderr: '' })
    expect(voided.stdout).toMatch(new RegExp(`^voided 0\\.006 USDC of ${payment.id}: captured 0\\.004/0\\.01 \\(0x`))
    const again = await cli.run(['payments', 'void', payment.id])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/invalid_auth_capture_evm_zero_authorization/)

    const refunded = await cli.run(['payments', 'refund', payment.id, '--amount', '0.001'])
    expect(refunded).toMatchObject({ code: 0, stderr: '' })
    expect(refunded.stdout).toMatch(
      new RegExp(`^refunded 0\\.001 USDC of ${payment.id}: captured 0\\.004/0\\.01, refunded 0\\.001 \\(0x`),
    )
    expect(await escrowOnChain(chain, payment)).toEqual({ capturable: 0n, refundable: 3_000n })
    // svc settlements: the payment's settlement is captured − refunded, its escrow state in the last column.
    expect(await cli.ok(['settlements'])).toMatch(/ 0\.003 USDC .* captured 0\.004\/0\.01, refunded 0\.001\n/)

    expect((await cli.run(['payments', 'refund', payment.id])).code).toBe(2)
    expect((await cli.run(['payments', 'capture', payment.id, '--amount', 'abc'])).code).toBe(2)
    expect((await cli.run(['payments', 'list', '--state', 'held'])).code).toBe(2)
    const missing = await cli.run(['payments', 'show', 'esc_nope'])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/payment not found/)
  })
})

describe('svc endpoints add|update --scheme auth-capture', () => {
  test('the escrow flags set the extra of the accept; bad values are usage errors (exit 2)', async () => {
    const endpoint = await cli.json([
      'endpoints',
      'add',
      seller.apiId,
      '--path',
      '/book',
      '--price',
      '0.01',
      '--scheme',
      'auth-capture',
      '--capture-mode',
      'deferred',
      '--capture-deadline',
      '1d',
      '--refund-deadline',
      '7d',
    ])
    expect(endpoint.accepts[0]).toMatchObject({
      scheme: 'auth-capture',
      amount: '10000',
      extra: { captureMode: 'deferred', captureDeadlineSeconds: 86_400, refundDeadlineSeconds: 604_800 },
    })
    const updated = await cli.json([
      'endpoints',
      'update',
      seller.apiId,
      endpoint.id,
      '--capture-mode',
      'sync',
      '--capture-deadline',
      '2h',
    ])
    expect(updated.accepts[0].extra).toMatchObject({ captureMode: 'sync', captureDeadlineSeconds: 7_200 })
    const bad = await cli.run(['endpoints', 'update', seller.apiId, endpoint.id, '--capture-mode', 'later'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--capture-mode must be one of sync, deferred, got "later"/)
    expect((await cli.run(['endpoints', 'update', seller.apiId, endpoint.id, '--refund-deadline', 'soon'])).code).toBe(
      2,
    )
  })
})

describe('svc payments reclaim (the buyer)', () => {
  test('what svc pay kept: refused before the capture deadline (exit 1), reclaimed after svc time advance', async () => {
    const facilitator = new HTTPFacilitatorClient({ url: chain.facilitatorUrl })
    const scheme = new AuthCaptureServerScheme({
      receiverAuthorizer: privateKeyToAccount(generatePrivateKey()),
      facilitator,
      now: chain.clock.now,
    })
    const network = chain.sandboxChain.network
    const app = express()
    app.use(
      paymentMiddleware(
        {
          'GET /hold': {
            accepts: {
              scheme: 'auth-capture',
              network,
              payTo,
              price: '$0.01',
              extra: { captureMode: 'deferred', captureDeadlineSeconds: 3_600 },
            },
          },
        },
        new x402ResourceServer(facilitator).register(network, scheme),
      ),
    )
    app.get('/:what', (req, res) => void res.json({ [req.params.what]: true }))
    const shop = await listen(app)
    try {
      const env = { SVC_EVM_PRIVATE_KEY: buyerKey }
      expect(await cli.run(['pay', `${shop.url}/hold`], env)).toMatchObject({ code: 0, stderr: '' })
      const [held] = await scheme.payments()
      const hash = held!.paymentInfoHash

      expect((await cli.run(['payments', 'reclaim'], env)).code).toBe(2)
      const early = await cli.run(['payments', 'reclaim', '--all'], env)
      expect(early.code).toBe(1)
      expect(early.stderr.trim()).toMatch(
        new RegExp(`^svc: ${hash} can be reclaimed from \\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z \\(svc time advance\\)$`),
      )

      expect((await cli.run(['time', 'advance', '2h'])).code).toBe(0)
      const before = await usdcOf(buyer.address)
      const reclaimed = await cli.run(['payments', 'reclaim', hash], env)
      expect(reclaimed).toMatchObject({ code: 0, stderr: '' })
      expect(reclaimed.stdout).toMatch(new RegExp(`^reclaimed 0\\.01 USDC of ${hash} \\(0x[0-9a-f]{64}\\)\\n$`))
      expect(await usdcOf(buyer.address)).toBe(before + price)
      expect(await cli.ok(['payments', 'reclaim', '--all'], env)).toBe('nothing to reclaim\n')
    } finally {
      await shop.close()
    }
  })
})
