/**
 * `erc20ApprovalGasSponsoring` through the gateway and svc's facilitator, with the official client (`x402Client` +
 * `@x402/evm`'s exact and upto schemes with an RPC URL, through `wrapFetchWithPayment`): a fresh buyer with USDC but
 * neither ETH nor a Permit2 approval signs an `approve(Permit2, …)` transaction; the facilitator funds its gas, sends
 * the approval and settles the Permit2 transfer (bad approvals: paid-routes-erc20-approval-refusals.test.ts).
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import { PERMIT2_ADDRESS } from '@x402/evm'
import { keccak256, maxUint256, type Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import {
  createApi,
  newSeller,
  sandboxAccept,
  startGatewayStack,
  usdcBalance,
  type Permit2GatewayStack,
  type startUpstream,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let permit2: Permit2GatewayStack['permit2']
let stack: Permit2GatewayStack | undefined

beforeAll(async () => {
  ;({ services, t, upstream, permit2 } = stack = await startGatewayStack({ permit2: true }))
})
afterAll(async () => {
  await stack?.stop()
})

/** The gas sponsoring extensions a 402 declares. */
const sponsorings = (extensions: Record<string, unknown> | undefined) =>
  Object.keys(extensions ?? {})
    .filter((key) => key.endsWith('GasSponsoring'))
    .sort()

/** A buyer without ETH or approval pays twice; the first payment's approval is sent by the facilitator. */
async function sponsoredPayments() {
  const { seller, api } = await permit2.apiWith('/weather/{city}', [permit2.sponsoredAccept('25000')])
  const probe = await localFetch(`${api.gateway}/weather/Oslo`)
  const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
  expect(sponsorings(required.extensions)).toEqual(['erc20ApprovalGasSponsoring'])

  const buyer = await permit2.newBuyer()
  expect(await permit2.chain.client.getBalance({ address: buyer.account.address })).toBe(0n)
  const response = await buyer.pay(`${api.gateway}/weather/Oslo`)
  expect(response.status).toBe(200)
  expect(await response.json()).toEqual({ city: 'Oslo', temp: 21.5 })

  const info = (buyer.sent[0]!.extensions as any).erc20ApprovalGasSponsoring.info
  expect(info).toMatchObject({ from: buyer.account.address, spender: PERMIT2_ADDRESS, amount: maxUint256.toString() })
  // The buyer's own signed approval is on chain, from the buyer, and Permit2 may spend its USDC.
  const approval = await permit2.chain.client.getTransactionReceipt({ hash: keccak256(info.signedTransaction) })
  expect(approval).toMatchObject({ status: 'success', from: buyer.account.address.toLowerCase() })
  expect(await permit2.allowanceOf(buyer.account.address)).toBe(maxUint256)
  expect(await permit2.chain.client.getTransactionCount({ address: buyer.account.address })).toBe(1)
  // The buyer had no ETH: what the approval did not use of the gas the facilitator sent is left.
  expect(await permit2.chain.client.getBalance({ address: buyer.account.address })).toBeGreaterThan(0n)

  const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
  expect(settled).toMatchObject({ success: true, payer: buyer.account.address })
  const transfer = await permit2.chain.client.getTransactionReceipt({ hash: settled.transaction as Hex })
  expect(transfer.status).toBe('success')
  expect(transfer.blockNumber).toBeGreaterThan(approval.blockNumber)
  expect(await usdcBalance(services, seller.payTo)).toBe(25_000n)
  expect(await usdcBalance(services, buyer.account.address)).toBe(10_000_000n - 25_000n)
  expect(await permit2.settlementsOf(api.id)).toEqual([
    expect.objectContaining({ amount: '25000', payer: buyer.account.address, transaction: settled.transaction }),
  ])

  // The same payment again is refused; the next one is a plain Permit2 payment (the allowance is there now).
  const replay = await localFetch(`${api.gateway}/weather/Oslo`, {
    headers: { 'payment-signature': encodePaymentSignatureHeader(buyer.sent[0]!) },
  })
  expect(replay.status).toBe(402)
  const again = await buyer.pay(`${api.gateway}/weather/Rome`)
  expect(again.status).toBe(200)
  expect((buyer.sent.at(-1)!.extensions as any)?.erc20ApprovalGasSponsoring?.info?.signedTransaction).toBeUndefined()
  expect(await usdcBalance(services, seller.payTo)).toBe(50_000n)
  expect((await permit2.settlementsOf(api.id)).map((row) => row.amount)).toEqual(['25000', '25000'])
  expect(await permit2.chain.client.getTransactionCount({ address: buyer.account.address })).toBe(1)
}

describe('a buyer without ETH or approval pays through Permit2 with a signed approval', () => {
  test('the facilitator funds the gas, sends the approval and settles; the next payment needs no approval', () =>
    sponsoredPayments())

  test('two payments at once carrying the same approval: it is sent once, and each payment is charged once', async () => {
    const { seller, api } = await permit2.apiWith('/weather/{city}', [permit2.sponsoredAccept('25000')])
    const buyer = await permit2.newBuyer()
    const signed = async (city: string) => {
      const probe = await localFetch(`${api.gateway}/weather/${city}`)
      const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
      return encodePaymentSignatureHeader(await buyer.client.createPaymentPayload(required))
    }
    const headers = [await signed('Oslo'), await signed('Rome')]
    const approvals = headers.map(
      (header) =>
        JSON.parse(Buffer.from(header, 'base64').toString()).extensions.erc20ApprovalGasSponsoring.info
          .signedTransaction,
    )
    expect(approvals[1]).toBe(approvals[0])
    const responses = await Promise.all(
      ['Oslo', 'Rome'].map((city, index) =>
        localFetch(`${api.gateway}/weather/${city}`, { headers: { 'payment-signature': headers[index]! } }),
      ),
    )
    expect(responses.map((response) => response.status)).toEqual([200, 200])
    expect(await permit2.chain.client.getTransactionCount({ address: buyer.account.address })).toBe(1)
    expect(await usdcBalance(services, seller.payTo)).toBe(50_000n)
    const rows = await permit2.settlementsOf(api.id)
    expect(rows.map((row) => row.amount)).toEqual(['25000', '25000'])
    expect(new Set(rows.map((row) => row.transaction)).size).toBe(2)
  })

  test('upto too: the settlement of what was used comes from the relayer its witness names', async () => {
    const { seller, api } = await permit2.apiWith('/metered/{amount}', [
      permit2.uptoAccept('100000', { gasSponsoring: 'erc20ApprovalGasSponsoring' }),
    ])
    const buyer = await permit2.newBuyer()
    const response = await buyer.pay(`${api.gateway}/metered/1234`)
    expect(response.status).toBe(200)
    expect((buyer.sent[0]!.extensions as any).erc20ApprovalGasSponsoring.info.signedTransaction).toMatch(/^0x/)
    const settled = decodePaymentResponseHeader(response.headers.get('payment-response')!)
    expect(settled).toMatchObject({ success: true, amount: '1234' })
    expect(await usdcBalance(services, seller.payTo)).toBe(1234n)
    expect(await permit2.allowanceOf(buyer.account.address)).toBe(maxUint256)
    expect(await permit2.settlementsOf(api.id)).toEqual([
      expect.objectContaining({ amount: '1234', transaction: settled.transaction }),
    ])
  })

  test('a buyer that holds the gas pays for its approval itself: the facilitator sends it no ETH', async () => {
    const { api } = await permit2.apiWith('/weather/{city}', [permit2.sponsoredAccept('1000')])
    const buyer = await permit2.newBuyer()
    await services.manager.fund(buyer.account.address, 'eth', '1')
    const response = await buyer.pay(`${api.gateway}/weather/Oslo`)
    expect(response.status).toBe(200)
    const info = (buyer.sent[0]!.extensions as any).erc20ApprovalGasSponsoring.info
    const approval = await permit2.chain.client.getTransactionReceipt({ hash: keccak256(info.signedTransaction) })
    expect(await permit2.chain.client.getBalance({ address: buyer.account.address })).toBe(
      10n ** 18n - approval.gasUsed * approval.effectiveGasPrice,
    )
  })

  test('a Permit2 accept that names no sponsoring declares both extensions (the client prefers the permit)', async () => {
    const { api } = await permit2.apiWith('/weather/{city}', [permit2.permit2Accept('1000')])
    const probe = await localFetch(`${api.gateway}/weather/Oslo`)
    const required = decodePaymentRequiredHeader(probe.headers.get('payment-required')!)
    expect(sponsorings(required.extensions)).toEqual(['eip2612GasSponsoring', 'erc20ApprovalGasSponsoring'])
  })

  test('extra.gasSponsoring is checked: one of the two extensions, on a Permit2 accept', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    const add = (extra: object) =>
      t.call(`/apis/${api.id}/endpoints`, {
        jwt: seller.jwt,
        environment: 'development',
        body: { method: 'GET', path_pattern: '/x', accepts: [{ ...sandboxAccept(services), extra }] },
      })
    const unknown = await add({ assetTransferMethod: 'permit2', gasSponsoring: 'paymaster' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toContain(
      'gasSponsoring: must be one of eip2612GasSponsoring, erc20ApprovalGasSponsoring',
    )
    const eip3009 = await add({ gasSponsoring: 'erc20ApprovalGasSponsoring' })
    expect(eip3009.status).toBe(400)
    expect(eip3009.body.error).toContain('set extra.assetTransferMethod to "permit2"')
  })
})

describe('on the plain relay (`relay: viem`)', () => {
  let viemStack: Permit2GatewayStack | undefined
  const use = (parts: Permit2GatewayStack) => void ({ services, t, upstream, permit2 } = parts)
  beforeAll(async () => use((viemStack = await startGatewayStack({ chain: { relay: 'viem' }, permit2: true }))))
  afterAll(async () => {
    use(stack!)
    await viemStack?.stop()
  })
  test('the same', () => sponsoredPayments())
})
