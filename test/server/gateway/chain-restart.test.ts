import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ChainServices } from '../../../chain/services.js'
import { localFetch } from '../../../sdk/local-fetch.js'
import type { TestServer } from '../../helpers/control.js'
import { newAccount, postJson, sandboxRequirements, signPayment } from '../../helpers/payments.js'
import {
  addEndpoint,
  createApi,
  newSeller,
  payingFetch,
  sandboxAccept,
  signedPaymentFor,
  type startUpstream,
  usdcBalance,
  startGatewayStack,
  type GatewayStack,
} from './helpers.js'

let services: ChainServices
let t: TestServer
let upstream: Awaited<ReturnType<typeof startUpstream>>
let stack: GatewayStack | undefined

beforeAll(async () => {
  ;({ services, t, upstream } = stack = await startGatewayStack({ chain: { healthIntervalMs: 100 } }))
})
afterAll(async () => {
  await stack?.stop()
})

type Answer = { via: string; status: number; retryAfter: string | null; body: any }

/** Sends `init` to `url` and keeps what the buyer sees of the answer. */
async function answerOf(via: string, url: string, init: RequestInit): Promise<Answer> {
  const response = await (via === 'gateway' ? localFetch : fetch)(url, init)
  return { via, status: response.status, retryAfter: response.headers.get('retry-after'), body: await response.json() }
}

describe('while the chain restarts', () => {
  test('the gateway and the facilitator answer 503 with Retry-After, never a 402 that calls the payment invalid; after the restart, paying works', async () => {
    const seller = await newSeller(t)
    const api = await createApi(t, seller, upstream.url)
    await addEndpoint(t, seller, api.id, {
      method: 'GET',
      path_pattern: '/weather/{city}',
      accepts: [sandboxAccept(services)],
    })
    const url = `${api.gateway}/weather/Lima`
    const buyer = newAccount()
    await services.manager.fund(buyer.address, 'usdc', '1')
    // Signed beforehand (signing needs no chain), so the restart window is spent paying.
    const count = 40
    const signatures = await Promise.all(Array.from({ length: count }, () => signedPaymentFor(services, buyer, url)))
    const requirements = sandboxRequirements(services.sandboxChain, { payTo: seller.payTo })
    const payloads = await Promise.all(
      Array.from({ length: count * 2 }, () => signPayment(services.sandboxChain, buyer, requirements)),
    )
    const facilitatorBody = (i: number) => ({
      body: JSON.stringify({ x402Version: 2, paymentPayload: payloads[i], paymentRequirements: requirements }),
      method: 'POST',
      headers: { 'content-type': 'application/json' },
    })

    let restarted = false
    const restart = new Promise((resolve) => services.sandboxChain.once('restart', resolve)).then(
      () => (restarted = true),
    )
    process.kill(services.sandboxChain.pid!, 'SIGKILL')
    // From Anvil's exit until the contracts are back (~0.1–0.4 s).
    await expect.poll(() => services.sandboxChain.restarting || restarted).toBe(true)

    const during: Answer[] = []
    for (let i = 0; i < count && !restarted; i++) {
      const answers = await Promise.all([
        answerOf('gateway', url, { headers: { 'payment-signature': signatures[i]! } }),
        answerOf('facilitator /verify', `${services.facilitatorUrl}/verify`, facilitatorBody(2 * i)),
        answerOf('facilitator /settle', `${services.facilitatorUrl}/settle`, facilitatorBody(2 * i + 1)),
      ])
      // Answers that crossed the end of the restart are not the window's.
      if (!restarted) during.push(...answers)
    }
    await restart

    expect(during.length).toBeGreaterThanOrEqual(3)
    for (const answer of during) {
      expect(answer, JSON.stringify(answer)).toMatchObject({ status: 503, retryAfter: '1' })
      expect(answer.body.error).toMatch(/the Sandbox chain is restarting: retry in a moment/)
      expect(JSON.stringify(answer.body)).not.toMatch(/simulation_failed|fetch failed|invalid_exact/)
    }
    expect(during.filter((answer) => answer.via === 'gateway')[0]!.body.error).toBe(
      'the facilitator cannot judge payments right now (the Sandbox chain is restarting: retry in a moment)',
    )

    // The chain came back empty: fund the buyer again, and pay.
    await services.manager.fund(buyer.address, 'usdc', '1')
    const paid = await payingFetch(services, buyer)(url)
    expect(paid.status).toBe(200)
    expect(await paid.json()).toEqual({ city: 'Lima', temp: 21.5 })
    expect(await usdcBalance(services, seller.payTo)).toBe(10000n)
    const fresh = await signPayment(
      services.sandboxChain,
      buyer,
      sandboxRequirements(services.sandboxChain, { payTo: seller.payTo }),
    )
    const settled = await postJson(`${services.facilitatorUrl}/settle`, {
      x402Version: 2,
      paymentPayload: fresh,
      paymentRequirements: requirements,
    })
    expect(settled).toMatchObject({ status: 200, body: { success: true } })
  })
})
