/**
 * The relayer (chain/relay/relayer.ts): a transfer simulated at verify is not simulated again at settle, and if it reverts
 * after all, the reverted transaction is explained by its revert reason; settling is one transaction.
 */
import diagnostics from 'node:diagnostics_channel'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { newAccount, sandboxRequirements, signPayment } from '../../helpers/payments.js'

let services: ChainServices
let chain: SandboxChain
beforeAll(async () => {
  services = await startChainServices()
  chain = services.sandboxChain
})
afterAll(() => services?.stop())

describe('settle after verify', () => {
  test('a transfer that passed verify but reverts at settle (the payer spent the balance meanwhile): the revert reason, no charge', async () => {
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '0.02')
    const requirements = sandboxRequirements(chain, { payTo: newAccount().address, amount: '20000' })
    const first = await signPayment(chain, buyer, requirements)
    const second = await signPayment(chain, buyer, requirements)
    expect(await services.facilitator.verify(first, requirements)).toMatchObject({ isValid: true })
    // Meanwhile the same payer's other payment takes the whole balance.
    expect(await services.facilitator.settle(second, requirements)).toMatchObject({ success: true })

    const settled = await services.facilitator.settle(first, requirements)
    expect(settled).toMatchObject({
      success: false,
      errorReason: 'invalid_exact_evm_insufficient_balance',
      transaction: '',
    })
    const balance = await chain.client.readContract({
      address: chain.usdc.address,
      abi: sandboxUsdcAbi,
      functionName: 'balanceOf',
      args: [buyer.address],
    })
    expect(balance).toBe(0n)
    const nonce = (first.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce
    expect(
      await chain.client.readContract({
        address: chain.usdc.address,
        abi: sandboxUsdcAbi,
        functionName: 'authorizationState',
        args: [buyer.address, nonce],
      }),
    ).toBe(false)
  })

  test('a verified transfer settles with one transaction, and a replay is refused by the chain', async () => {
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const requirements = sandboxRequirements(chain, { payTo: newAccount().address })
    const payment = await signPayment(chain, buyer, requirements)
    expect(await services.facilitator.verify(payment, requirements)).toMatchObject({ isValid: true })
    const settled = await services.facilitator.settle(payment, requirements)
    expect(settled).toMatchObject({ success: true })
    const receipt = await chain.client.getTransactionReceipt({ hash: settled.transaction as `0x${string}` })
    expect(receipt.status).toBe('success')
    expect(await services.facilitator.verify(payment, requirements)).toMatchObject({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    })
  })

  test('32 settlements at once: each one transaction over the relayer pool, none refused, none left in the pool', async () => {
    const requirements = sandboxRequirements(chain, { payTo: newAccount().address })
    const buyers = Array.from({ length: 32 }, () => newAccount())
    for (const buyer of buyers) await services.manager.fund(buyer.address, 'usdc', '1')
    const payments = await Promise.all(buyers.map((buyer) => signPayment(chain, buyer, requirements)))
    const sent = () =>
      Promise.all(
        chain.accounts.relayers.map((account) => chain.client.getTransactionCount({ address: account.address })),
      )
    const before = await sent()
    const settled = await Promise.all(payments.map((payment) => services.facilitator.settle(payment, requirements)))
    expect(settled.filter((answer) => !answer.success)).toEqual([])
    expect(new Set(settled.map((answer) => answer.transaction)).size).toBe(32)
    const after = await sent()
    const perAccount = after.map((count, i) => count - before[i]!)
    expect(perAccount.reduce((sum, count) => sum + count, 0)).toBe(32)
    // Spread over the pool: more accounts than one took a share.
    expect(perAccount.filter((count) => count > 0).length).toBeGreaterThan(1)
    expect(await chain.client.request({ method: 'txpool_status' } as never)).toEqual({ pending: '0x0', queued: '0x0' })
  })
})

describe('the simulation started beside the signature recovery (chain/relay/relayer.ts)', () => {
  /** The `eth_call`s sent to the chain's RPC (alone or in a batch) while `run` runs, seen on undici's request channel. */
  async function countEthCalls(run: () => Promise<unknown>): Promise<number> {
    const rpc = new URL(chain.rpcUrl)
    let calls = 0
    const onRequest = (message: unknown) => {
      const { request } = message as { request: { origin: string; body: unknown } }
      if (request.origin !== rpc.origin || (typeof request.body !== 'string' && !(request.body instanceof Uint8Array)))
        return
      const body = JSON.parse(Buffer.from(request.body as string | Uint8Array).toString()) as
        | { method: string }
        | { method: string }[]
      calls += (Array.isArray(body) ? body : [body]).filter((call) => call.method === 'eth_call').length
    }
    diagnostics.subscribe('undici:request:create', onRequest)
    try {
      await run()
    } finally {
      diagnostics.unsubscribe('undici:request:create', onRequest)
    }
    return calls
  }

  test("a verification simulates the transfer once: the scheme's own simulation is answered by the one started early", async () => {
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const requirements = sandboxRequirements(chain, { payTo: newAccount().address })
    const payment = await signPayment(chain, buyer, requirements)
    await services.facilitator.verify(await signPayment(chain, buyer, requirements), requirements) // contract code cached
    expect(
      await countEthCalls(async () =>
        expect(await services.facilitator.verify(payment, requirements)).toMatchObject({ isValid: true }),
      ),
    ).toBe(1)
  })

  test('it starts before the scheme judges: a payment the scheme refuses before simulating costs that one call', async () => {
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    const requirements = sandboxRequirements(chain, { payTo: newAccount().address })
    const payment = await signPayment(chain, buyer, requirements)
    // Signed by the buyer, claimed for another payer: the scheme refuses the signature and simulates nothing.
    const forged = {
      ...payment,
      payload: {
        ...payment.payload,
        authorization: { ...(payment.payload as { authorization: object }).authorization, from: newAccount().address },
      },
    }
    expect(
      await countEthCalls(async () =>
        expect(await services.facilitator.verify(forged, requirements)).toMatchObject({
          isValid: false,
          invalidReason: 'invalid_exact_evm_signature',
        }),
      ),
    ).toBe(1)
  })
})
