/**
 * Bad batch-settlement input through svc's gateway (issue 24): a voucher below the last one, above the deposit, for
 * another channel, replayed, or signed by another key; a refund for a busy channel; a deposit below the minimum. Each
 * is a 402 whose `error` is the scheme's own reason, nothing is charged, and never a 500.
 */
import { x402Client } from '@x402/core/client'
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequirements } from '@x402/core/types'
import { toClientEvmSigner } from '@x402/evm'
import {
  BatchSettlementEvmScheme as BatchClient,
  computeChannelId,
  signVoucher,
} from '@x402/evm/batch-settlement/client'
import { wrapFetchWithPayment } from '@x402/fetch'
import type { LocalAccount } from 'viem'
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest'
import { localFetch } from '../../../sdk/local-fetch.js'
import { newAccount } from '../../helpers/payments.js'
import { batchAccept } from './batch-kit.js'
import { addEndpoint, createApi, newSeller, startGatewayStack, type GatewayStack } from './helpers.js'

const price = 1_000n
const network = 'eip155:845320402'
let stack: GatewayStack
let gateway: string

beforeAll(async () => {
  stack = await startGatewayStack()
  const seller = await newSeller(stack.t)
  const api = await createApi(stack.t, seller, stack.upstream.url)
  gateway = api.gateway
  for (const path_pattern of ['/weather/{city}', '/delay/{ms}'])
    await addEndpoint(stack.t, seller, api.id, {
      method: 'GET',
      path_pattern,
      accepts: [batchAccept(stack.services, price, { claimIntervalSeconds: 3600, settleIntervalSeconds: 3600 })],
    })
})
afterAll(async () => {
  await stack?.stop()
})

const signerOf = (account: LocalAccount) => toClientEvmSigner(account, stack.services.sandboxChain.client as never)

/** A funded buyer with the official client, and its channel opened by one paid request. */
async function openChannel(options: ConstructorParameters<typeof BatchClient>[1] = {}) {
  const buyer = newAccount()
  await stack.services.manager.fund(buyer.address, 'usdc', '1')
  const scheme = new BatchClient(signerOf(buyer), options)
  const client = new x402Client().register(network, scheme).setSpendControls({ allowedAssets: true })
  return { buyer, scheme, pay: wrapFetchWithPayment(localFetch, client) }
}

async function requirementsOf(url: string): Promise<PaymentRequirements> {
  const probe = await localFetch(url)
  await probe.arrayBuffer()
  return decodePaymentRequiredHeader(probe.headers.get('payment-required')!).accepts[0]!
}

/** Sends a batch-settlement payload of its own making. */
async function send(url: string, requirements: PaymentRequirements, payload: Record<string, unknown>) {
  const header = encodePaymentSignatureHeader({ x402Version: 2, accepted: requirements, payload } as never)
  const response = await localFetch(url, { headers: { 'payment-signature': header } })
  return { status: response.status, body: (await response.json()) as { error: string; invalidReason?: string } }
}

/** A voucher for `maxClaimable` on the buyer's channel, signed by `signer` (the buyer's own by default). */
async function voucher(
  scheme: BatchClient,
  buyer: LocalAccount,
  requirements: PaymentRequirements,
  maxClaimable: bigint,
  signer: LocalAccount = buyer,
) {
  const channelConfig = scheme.buildChannelConfig(requirements)
  const channelId = computeChannelId(channelConfig, network)
  return {
    type: 'voucher',
    channelConfig,
    voucher: await signVoucher(signerOf(signer), channelId, maxClaimable.toString(), network),
  }
}

describe('batch-settlement refusals', () => {
  test('vouchers: below the last, replayed, for another channel, signed by another key, above the deposit', async () => {
    const url = `${gateway}/weather/paris`
    const { buyer, scheme, pay } = await openChannel()
    expect((await pay(url)).status).toBe(200)
    const requirements = await requirementsOf(url)

    // The next voucher must be 2000: 1000 again is below it.
    const below = await send(url, requirements, await voucher(scheme, buyer, requirements, price))
    expect(below).toMatchObject({
      status: 402,
      body: { error: 'invalid_batch_settlement_evm_cumulative_amount_mismatch' },
    })

    const good = await voucher(scheme, buyer, requirements, 2n * price)
    expect((await send(url, requirements, good)).status).toBe(200)
    const replayed = await send(url, requirements, good)
    expect(replayed).toMatchObject({
      status: 402,
      body: { error: 'invalid_batch_settlement_evm_cumulative_amount_mismatch' },
    })

    const other = await openChannel()
    expect((await other.pay(url)).status).toBe(200)
    const foreign = await voucher(scheme, buyer, requirements, 3n * price)
    const mixed = {
      ...foreign,
      voucher: {
        ...foreign.voucher,
        channelId: computeChannelId(other.scheme.buildChannelConfig(requirements), network),
      },
    }
    expect(await send(url, requirements, mixed)).toMatchObject({
      status: 402,
      body: { error: 'invalid_batch_settlement_evm_channel_id_mismatch' },
    })

    const forged = await send(url, requirements, await voucher(scheme, buyer, requirements, 3n * price, newAccount()))
    expect(forged.status).toBe(402)
    expect(forged.body.error).toBe('invalid_batch_settlement_evm_voucher_signature')

    // Spend the rest of the 10 000 deposit, then sign a voucher past it.
    for (let spent = 3n; spent <= 10n; spent++)
      expect((await send(url, requirements, await voucher(scheme, buyer, requirements, spent * price))).status).toBe(
        200,
      )
    const beyond = await send(url, requirements, await voucher(scheme, buyer, requirements, 11n * price))
    expect(beyond).toMatchObject({
      status: 402,
      body: { error: 'invalid_batch_settlement_evm_cumulative_exceeds_balance' },
    })
    // Only the ten good requests were charged.
    const channelId = computeChannelId(scheme.buildChannelConfig(requirements), network).toLowerCase()
    expect(
      await stack.t.server.database.db
        .selectFrom('batch_channels')
        .select(['spent', 'vouchers'])
        .where('channel_id', '=', channelId)
        .executeTakeFirst(),
    ).toEqual({ spent: '10000', vouchers: 10 })
  })

  test('a deposit below the minimum', async () => {
    const { pay } = await openChannel({ depositStrategy: () => (5n * price).toString() })
    const response = await pay(`${gateway}/weather/lima`)
    expect(response.status).toBe(402)
    expect(((await response.json()) as { error: string }).error).toBe(
      'invalid_batch_settlement_evm_deposit_below_min_deposit',
    )
  })

  test('a refund while the channel is busy with a request', async () => {
    const { scheme, pay } = await openChannel()
    expect((await pay(`${gateway}/delay/1`)).status).toBe(200)
    const calls = stack.upstream.calls.length
    const slow = pay(`${gateway}/delay/3000`)
    await vi.waitFor(() => expect(stack.upstream.calls.length).toBe(calls + 1))
    await expect(scheme.refund(`${gateway}/delay/1`, { fetch: localFetch })).rejects.toThrow(
      'invalid_batch_settlement_evm_channel_busy',
    )
    expect((await slow).status).toBe(200)
  })
})
