/**
 * Bad `erc20ApprovalGasSponsoring` approvals, each made from the official client's payment with its signed approval
 * replaced: refused with the extension's reason (x402's, or svc's own for what x402 leaves unchecked) at the gateway
 * and at the facilitator's /settle, with nothing sent (no ETH to the buyer, no approval) and nothing charged; and an
 * approval whose nonce the buyer spends between the verify and the settle is refused before its gas is sent.
 */
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentPayload } from '@x402/core/types'
import { PERMIT2_ADDRESS } from '@x402/evm'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  createWalletClient,
  encodeFunctionData,
  erc20Abi,
  http,
  keccak256,
  maxUint256,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { newAccount, postJson } from '../../helpers/payments.js'
import { isKnownTransaction } from '../../../chain/facilitator/erc20-approval-checks.js'
import {
  addEndpoint,
  createApi,
  errorOf,
  newSeller,
  startGatewayStack,
  usdcBalance,
  type Permit2GatewayStack,
} from './helpers.js'
import type { Permit2Buyer } from './permit2-kit.js'

let stack: Permit2GatewayStack | undefined
beforeAll(async () => {
  stack = await startGatewayStack({ permit2: true })
})
afterAll(async () => {
  await stack?.stop()
})

const services = () => stack!.services
/** `server` listening on port 0: its URL. */
async function listen(server: ReturnType<typeof createServer>) {
  server.listen(0, '127.0.0.1')
  await new Promise((resolve) => server.once('listening', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}
const permit2 = () => stack!.permit2

describe('a bad approval is refused with its reason; nothing is sent or charged', () => {
  const approve = (spender: Address, amount = maxUint256) =>
    encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] })

  /** The official client's payload for the endpoint, its signed approval replaced by one `signer` signs. */
  async function paymentWith(
    buyer: Permit2Buyer,
    url: string,
    tx: { data: Hex; to?: Address; chainId?: number; nonce?: number; gas?: bigint },
    signer: LocalAccount = buyer.account,
    amount = maxUint256,
  ) {
    const probe = await localFetch(url)
    const payload = await buyer.client.createPaymentPayload(
      decodePaymentRequiredHeader(probe.headers.get('payment-required')!),
    )
    const signedTransaction = await signer.signTransaction({
      type: 'eip1559',
      to: tx.to ?? permit2().chain.usdc.address,
      data: tx.data,
      nonce: tx.nonce ?? 0,
      gas: tx.gas ?? 70_000n,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      chainId: tx.chainId ?? permit2().chain.chainId,
    })
    const extensions = payload.extensions as any
    extensions.erc20ApprovalGasSponsoring.info = {
      ...extensions.erc20ApprovalGasSponsoring.info,
      amount: amount.toString(),
      signedTransaction,
    }
    return payload
  }

  test('not an approve, the wrong spender, the wrong chain, another signer, a stale nonce, too little, too much gas', async () => {
    const { seller, api } = await permit2().apiWith('/weather/{city}', [permit2().sponsoredAccept('25000')])
    const url = `${api.gateway}/weather/Oslo`
    const buyer = await permit2().newBuyer()
    const other = newAccount()
    const cases: [string, PaymentPayload][] = [
      [
        'erc20_approval_tx_wrong_selector',
        await paymentWith(buyer, url, {
          data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [PERMIT2_ADDRESS, 1n] }),
        }),
      ],
      ['erc20_approval_tx_wrong_spender', await paymentWith(buyer, url, { data: approve(other.address) })],
      ['erc20_approval_tx_wrong_chain', await paymentWith(buyer, url, { data: approve(PERMIT2_ADDRESS), chainId: 1 })],
      ['erc20_approval_tx_signer_mismatch', await paymentWith(buyer, url, { data: approve(PERMIT2_ADDRESS) }, other)],
      ['erc20_approval_tx_wrong_nonce', await paymentWith(buyer, url, { data: approve(PERMIT2_ADDRESS), nonce: 3 })],
      [
        'erc20_approval_amount_too_low',
        await paymentWith(buyer, url, { data: approve(PERMIT2_ADDRESS, 100n) }, buyer.account, 100n),
      ],
      [
        'erc20_approval_tx_gas_too_high',
        await paymentWith(buyer, url, { data: approve(PERMIT2_ADDRESS), gas: 1_000_000n }),
      ],
    ]
    for (const [reason, payload] of cases) {
      const response = await localFetch(url, {
        headers: { 'payment-signature': encodePaymentSignatureHeader(payload) },
      })
      expect(response.status, reason).toBe(402)
      expect(await errorOf(response), reason).toContain(`the payment is invalid: ${reason}`)
    }
    // Nothing reached the chain: no ETH sent to the buyer, no transaction of the buyer's, no allowance, no transfer.
    expect(await permit2().chain.client.getBalance({ address: buyer.account.address })).toBe(0n)
    expect(await permit2().chain.client.getTransactionCount({ address: buyer.account.address })).toBe(0)
    expect(await permit2().allowanceOf(buyer.account.address)).toBe(0n)
    expect(await usdcBalance(services(), seller.payTo)).toBe(0n)
    expect(await permit2().settlementsOf(api.id)).toEqual([])
  })

  test("the facilitator's /settle refuses them too (without a /verify first), sending nothing", async () => {
    const { api } = await permit2().apiWith('/weather/{city}', [permit2().sponsoredAccept('25000')])
    const url = `${api.gateway}/weather/Oslo`
    const buyer = await permit2().newBuyer()
    const payload = await paymentWith(buyer, url, { data: approve(PERMIT2_ADDRESS), chainId: 1 })
    const settle = await postJson(`${services().facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: payload.accepted,
    })
    expect(settle.body).toMatchObject({ success: false, errorReason: 'erc20_approval_tx_wrong_chain' })
    const spender = await paymentWith(buyer, url, { data: approve(newAccount().address) })
    const refused = await postJson(`${services().facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: spender,
      paymentRequirements: spender.accepted,
    })
    expect(refused.body).toMatchObject({ success: false, errorReason: 'erc20_approval_tx_wrong_spender' })
    expect(await permit2().chain.client.getBalance({ address: buyer.account.address })).toBe(0n)
    expect(await permit2().chain.client.getTransactionCount({ address: buyer.account.address })).toBe(0)
  })

  test("the buyer spends the approval's nonce between the verify and the settle: refused before its gas is sent", async () => {
    // An upstream that answers when told: the payment is verified, then held while the buyer moves its nonce.
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    let called!: () => void
    const reached = new Promise<void>((resolve) => (called = resolve))
    const held = createServer((_req, res) => {
      called()
      void released.then(() => res.setHeader('content-type', 'application/json').end('{"ok":true}'))
    })
    const upstream = await listen(held)
    try {
      const seller = await newSeller(stack!.t)
      const api = await createApi(stack!.t, seller, upstream)
      await addEndpoint(stack!.t, seller, api.id, {
        method: 'GET',
        path_pattern: '/held',
        accepts: [permit2().sponsoredAccept('25000')],
      })
      // ETH for its own transaction, not for the approval's gas: the facilitator would send it the rest.
      const buyer = await permit2().newBuyer()
      await services().manager.fund(buyer.account.address, 'eth', '0.0001')
      const paying = buyer.pay(`${api.gateway}/held`)
      await reached
      const wallet = createWalletClient({
        account: buyer.account,
        chain: permit2().chain.chain,
        transport: http(services().rpcUrl),
      })
      const own = await wallet.sendTransaction({ to: buyer.account.address, value: 0n })
      await permit2().chain.client.waitForTransactionReceipt({ hash: own, pollingInterval: 20 })
      const left = await permit2().chain.client.getBalance({ address: buyer.account.address })
      release()
      const response = await paying
      expect(response.status).toBe(402)
      expect(await errorOf(response)).toBe('the payment could not be settled: erc20_approval_broadcast_failed')
      // No gas was sent to the buyer for an approval that could not be mined.
      expect(await permit2().chain.client.getBalance({ address: buyer.account.address })).toBe(left)
      const approval = (buyer.sent[0]!.extensions as any).erc20ApprovalGasSponsoring.info.signedTransaction
      expect(await isKnownTransaction(permit2().chain.client, keccak256(approval))).toBe(false)
      expect(await permit2().allowanceOf(buyer.account.address)).toBe(0n)
      expect(await usdcBalance(services(), seller.payTo)).toBe(0n)
      expect(await permit2().settlementsOf(api.id)).toEqual([])
    } finally {
      held.closeAllConnections()
      held.close()
    }
  })
})
