/**
 * A relayer whose nonce is stale (issue 21, minor: after an Anvil restart one payment got `402 … nonce too low`). The
 * relayer's account is moved past the nonce svc counted, as a chain restarted under its feet leaves it: the next
 * settlement is a 503 with Retry-After (the buyer is not refused for svc's own nonce), the relayer's nonce is read
 * again, and the same payment sent again settles.
 */
import { afterAll, beforeAll, expect, test } from 'vitest'
import type { Hash, LocalAccount } from 'viem'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import { newAccount, postJson, sandboxRequirements, signPayment } from '../../helpers/payments.js'

let services: ChainServices
let buyer: LocalAccount
beforeAll(async () => {
  services = await startChainServices()
  buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '100')
})
afterAll(() => services?.stop())

const settle = (paymentPayload: unknown, paymentRequirements: unknown) =>
  localFetch(`${services.facilitatorUrl}/settle`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ x402Version: 2, paymentPayload, paymentRequirements }),
  })

test('a stale relayer nonce answers 503 with Retry-After, then the same payment settles', async () => {
  const { client, accounts } = services.sandboxChain
  const requirements = sandboxRequirements(services.sandboxChain, { payTo: newAccount().address, amount: '1000' })
  // Every relayer counts its nonces once it has sent; one payment makes one of them count.
  const first = await postJson(`${services.facilitatorUrl}/settle`, {
    x402Version: 2,
    paymentPayload: await signPayment(services.sandboxChain, buyer, requirements),
    paymentRequirements: requirements,
  })
  expect(first.body).toMatchObject({ success: true })

  // Every relayer account sends a transaction svc does not know of, mined: its counted nonce is now behind.
  for (const relayer of accounts.relayers)
    await client.request({
      method: 'eth_sendTransaction',
      params: [{ from: relayer.address, to: relayer.address, value: '0x0' }],
    } as never)
  await client.request({ method: 'evm_mine', params: [] } as never)

  const payload = await signPayment(services.sandboxChain, buyer, requirements)
  const stale = await settle(payload, requirements)
  const body = (await stale.json()) as { success: boolean; errorMessage?: string; transaction: Hash }
  console.info(`relayer-nonce: a stale relayer nonce answered ${stale.status} ${JSON.stringify(body)}`)
  expect(stale.status).toBe(503)
  expect(stale.headers.get('retry-after')).toBe('1')
  expect(body).toMatchObject({ success: false, errorReason: 'chain_unavailable' })

  const again = await settle(payload, requirements)
  expect(again.status).toBe(200)
  expect(await again.json()).toMatchObject({ success: true, payer: buyer.address })
})
