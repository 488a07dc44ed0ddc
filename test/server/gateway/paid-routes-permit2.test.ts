/**
 * The gateway's Permit2 and upto payments, with the official client (`x402Client` + `@x402/evm`'s exact and upto
 * schemes through `wrapFetchWithPayment`): exact via Permit2 with and without the buyer's approval (the gateway
 * declares eip2612GasSponsoring, which svc's facilitator sponsors), upto charging what the upstream's
 * Settlement-Overrides says (zero included), and what the ledger and the discovery documents say of each.
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from '@x402/core/http'
import { PERMIT2_ADDRESS } from '@x402/evm'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import { errorOf, startGatewayStack, usdcBalance, type Permit2GatewayStack } from './helpers.js'

let services: ChainServices
let t: TestServer
let permit2: Permit2GatewayStack['permit2']
let stack: Permit2GatewayStack | undefined

beforeAll(async () => {
  ;({ services, t, permit2 } = stack = await startGatewayStack({ permit2: true }))
})
afterAll(async () => {
  await stack?.stop()
})

describe('exact via Permit2', () => {
  test('the 402 asks for Permit2 and declares eip2612GasSponsoring; a buyer without approval or gas pays with a signed permit', async () => {
    const { seller, api } = await permit2.apiWith('/weather/{city}', [permit2.permit2Accept('25000')])
    const probe = await localFetch(`${api.gateway}/weather/Oslo`)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    expect(required.accepts[0]).toMatchObject({
      scheme: 'exact',
      amount: '25000',
      extra: { assetTransferMethod: 'permit2', name: 'USDC', version: '2' },
    })
    expect(Object.keys(required.extensions ?? {})).toContain('eip2612GasSponsoring')

    const buyer = await permit2.newBuyer()
    const response = await buyer.pay(`${api.gateway}/weather/Oslo`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ city: 'Oslo', temp: 21.5 })
    expect((buyer.sent[0]!.extensions as any).eip2612GasSponsoring.info).toMatchObject({
      from: buyer.account.address,
      spender: PERMIT2_ADDRESS,
    })
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, payer: buyer.account.address })
    expect(await usdcBalance(services, seller.payTo)).toBe(25_000n)
    expect(await permit2.settlementsOf(api.id)).toEqual([
      expect.objectContaining({ amount: '25000', payer: buyer.account.address, transaction: settled.transaction }),
    ])
  })

  test('a buyer that approved Permit2 pays without a permit; the same payment sent again is refused with its reason', async () => {
    const { seller, api } = await permit2.apiWith('/weather/{city}', [permit2.permit2Accept('10000')])
    const buyer = await permit2.newBuyer()
    // The control plane's faucet approves Permit2 for the buyer (sending the approval as the address; its gas added).
    const faucet = await t.call('/dev/faucet', {
      jwt: seller.jwt,
      environment: 'development',
      body: { address: buyer.account.address, asset: 'usdc', amount: '1', approve_permit2: true },
    })
    expect(faucet.status).toBe(200)
    expect(faucet.body.transactions.permit2_approval).toMatch(/^0x[0-9a-f]{64}$/)
    const response = await buyer.pay(`${api.gateway}/weather/Rome`)
    expect(response.status).toBe(200)
    // The gateway's declaration is echoed; no permit is signed into it.
    expect((buyer.sent[0]!.extensions as any)?.eip2612GasSponsoring?.info?.signature).toBeUndefined()
    expect(await usdcBalance(services, seller.payTo)).toBe(10_000n)

    const header = Buffer.from(JSON.stringify(buyer.sent[0])).toString('base64')
    const replay = await localFetch(`${api.gateway}/weather/Rome`, { headers: { 'payment-signature': header } })
    expect(replay.status).toBe(402)
    expect(await errorOf(replay)).toMatch(
      /^the payment is invalid: permit2_simulation_failed \(Permit2 nonce \d+ of 0x[0-9a-fA-F]{40} was already used: this payment was settled before\)$/,
    )
    expect(await usdcBalance(services, seller.payTo)).toBe(10_000n)
    expect(await permit2.settlementsOf(api.id)).toHaveLength(1)
  })
})

describe('upto', () => {
  test("the buyer signs the maximum; the upstream's Settlement-Overrides says what is charged, and is not passed on", async () => {
    const { seller, api } = await permit2.apiWith('/metered/{amount}', [permit2.uptoAccept('100000')])
    const buyer = await permit2.newBuyer({ gas: true })
    await permit2.approvePermit2(buyer.account)
    const response = await buyer.pay(`${api.gateway}/metered/1234`)
    expect(response.status).toBe(200)
    expect(response.headers.get('settlement-overrides')).toBeNull()
    expect(buyer.sent[0]).toMatchObject({
      accepted: { scheme: 'upto', amount: '100000' },
      payload: { permit2Authorization: { permitted: { amount: '100000' } } },
    })
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, amount: '1234' })
    expect(await usdcBalance(services, seller.payTo)).toBe(1234n)
    expect(await usdcBalance(services, buyer.account.address)).toBe(10_000_000n - 1234n)
    expect(await permit2.settlementsOf(api.id)).toEqual([
      expect.objectContaining({ amount: '1234', transaction: settled.transaction }),
    ])
  })

  test('nothing used charges 0 without a transaction, recorded as such every time; percent and dollars convert', async () => {
    const { seller, api } = await permit2.apiWith('/metered/{amount}', [permit2.uptoAccept('100000')])
    const buyer = await permit2.newBuyer()
    for (const used of ['0', '0', '25%', '$0.05']) {
      const response = await buyer.pay(`${api.gateway}/metered/${encodeURIComponent(used)}`)
      expect(response.status).toBe(200)
    }
    const rows = await permit2.settlementsOf(api.id)
    expect(rows.map((row) => row.amount)).toEqual(['0', '0', '25000', '50000'])
    expect(rows.map((row) => row.transaction === '')).toEqual([true, true, false, false])
    expect(await usdcBalance(services, seller.payTo)).toBe(75_000n)

    const stats = await t.call('/stats/overview', { jwt: seller.jwt, environment: 'development' })
    expect(JSON.stringify(stats.body)).toContain('"75000"')
  })

  test('an upstream asking for more than the maximum, or saying it badly, is a 502 and nothing is charged', async () => {
    const { seller, api } = await permit2.apiWith('/metered/{amount}', [permit2.uptoAccept('100000')])
    const buyer = await permit2.newBuyer()
    const over = await buyer.pay(`${api.gateway}/metered/100001`)
    expect(over.status).toBe(502)
    expect(await errorOf(over)).toBe(
      "the upstream's Settlement-Overrides header asks for 100001, more than the 100000 the buyer signed for; the payment was not settled",
    )
    const bad = await buyer.pay(`${api.gateway}/metered/lots`)
    expect(bad.status).toBe(502)
    expect(await errorOf(bad)).toMatch(
      /^the upstream's Settlement-Overrides header has an amount "lots" that is none of /,
    )
    expect(await usdcBalance(services, seller.payTo)).toBe(0n)
    expect(await permit2.settlementsOf(api.id)).toEqual([])
  })

  test('discovery shows an upto price as a maximum: dynamic from 0', async () => {
    const { api } = await permit2.apiWith('/metered/{amount}', [permit2.uptoAccept('100000')])
    const document = (await (await localFetch(`${new URL(api.gateway).origin}/openapi.json`)).json()) as any
    const operation = document.paths['/metered/{amount}'].get
    expect(operation['x-payment-info'].price).toEqual({ mode: 'dynamic', currency: 'USD', min: '0.00', max: '0.10' })
  })
})

describe('accepts in the control plane', () => {
  test('upto and assetTransferMethod are stored as given; /config/platform names both schemes', async () => {
    const { seller, api } = await permit2.apiWith('/metered/{amount}', [
      permit2.uptoAccept('100000'),
      permit2.permit2Accept('5000'),
    ])
    const { body } = await t.call(`/apis/${api.id}/endpoints`, { jwt: seller.jwt, environment: 'development' })
    const accepts = (body.endpoints ?? body.data ?? body)[0].accepts
    expect(accepts.map((a: any) => [a.scheme, a.extra?.assetTransferMethod])).toEqual([
      ['upto', 'permit2'],
      ['exact', 'permit2'],
    ])
    const platform = await t.call('/config/platform', {})
    expect(platform.body.schemes).toEqual(['exact', 'upto', 'batch-settlement', 'auth-capture'])
  })
})
