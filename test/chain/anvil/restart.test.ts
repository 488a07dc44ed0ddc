import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { getJson, newAccount, postJson, sandboxRequirements, signPayment } from '../../helpers/payments.js'
import type { ChainRestartInfo } from '../../../chain/sandbox-chain.js'

let services: ChainServices
beforeAll(async () => {
  services = await startChainServices({ healthIntervalMs: 100 })
})
afterAll(() => services?.stop())

/** Funds a buyer, pays once through the facilitator, and returns the settle answer. */
async function payOnce() {
  const buyer = newAccount()
  await services.manager.fund(buyer.address, 'usdc', '1')
  const requirements = sandboxRequirements(services.sandboxChain, { payTo: newAccount().address })
  const payload = await signPayment(services.sandboxChain, buyer, requirements)
  return (
    await postJson(`${services.facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: payload,
      paymentRequirements: requirements,
    })
  ).body
}

describe('chain restart', () => {
  test('when Anvil dies, the kit starts a fresh chain on the same RPC URL and reinstalls the contracts', async () => {
    const funded = newAccount().address
    await services.manager.fund(funded, 'usdc', '3')
    expect((await payOnce()).success).toBe(true)
    const pid = services.sandboxChain.pid
    expect(pid).toBeTypeOf('number')

    const restarted = new Promise<ChainRestartInfo>((resolve) => services.sandboxChain.once('restart', resolve))
    process.kill(pid!, 'SIGKILL')
    const info = await restarted
    expect(info).toMatchObject({ generation: 1, reason: 'anvil exited' })
    expect(services.sandboxChain.pid).not.toBe(pid)

    // Balances vanished with the old chain, as the spec says.
    const balances = await getJson(`${services.chainManagerUrl}/balances/${funded}`)
    expect(balances.body).toMatchObject({ eth_wei: '0x0', usdc_base: '0x0' })
    // Everything else works: faucet, facilitator (fresh relayer nonce), same URLs.
    expect(await services.sandboxChain.client.getChainId()).toBe(845320402)
    expect((await payOnce()).success).toBe(true)
    expect((await getJson(`${services.chainManagerUrl}/health`)).body.generation).toBe(1)
  })

  test('when the chain state is reset under the kit, it notices and reinstalls the contracts', async () => {
    const restarted = new Promise<ChainRestartInfo>((resolve) => services.sandboxChain.once('restart', resolve))
    await services.sandboxChain.testClient.request({ method: 'anvil_reset' as never, params: [] as never })
    const info = await restarted
    expect(info).toMatchObject({ generation: 2, reason: 'chain state was reset' })
    expect((await payOnce()).success).toBe(true)
  })
})
