/**
 * svc's facilitator on the twin, at its HTTP surface: v1 bodies settle once (a retry answers the same transaction),
 * a v1 network it does not settle on is `invalid_network`, and bad twin input is refused before anything starts.
 */
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/client'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChainServices, type ChainServices } from '../../../chain/services.js'
import { postJson } from '../../helpers/payments.js'

let services: ChainServices
const payTo = privateKeyToAccount(generatePrivateKey()).address

beforeAll(async () => {
  services = await startChainServices({ twins: ['base-sepolia'] })
})
afterAll(async () => {
  await services?.stop()
})

/** A v1 `exact` requirement as x402-express 1.2.0 sends it for "$0.001" on `network`. */
const v1Requirements = (network: string) => ({
  scheme: 'exact',
  network,
  maxAmountRequired: '1000',
  resource: 'http://127.0.0.1/weather',
  description: '',
  mimeType: '',
  payTo,
  maxTimeoutSeconds: 60,
  asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  extra: { name: 'USDC', version: '2' },
})

/** A v1 body signed for `signedFor` (a network @x402/evm's v1 table knows) and naming `network`. */
async function v1Body(network = 'base-sepolia', signedFor = network) {
  const account = privateKeyToAccount(generatePrivateKey())
  await services.twins[0]!.manager.fund(account.address, 'usdc', '1')
  const requirements = v1Requirements(network)
  const signed = await new ExactEvmSchemeV1(account).createPaymentPayload(1, v1Requirements(signedFor) as never)
  return {
    payer: account.address,
    body: {
      x402Version: 1,
      paymentPayload: { ...signed, scheme: 'exact', network },
      paymentRequirements: requirements,
    },
  }
}

describe('v1 exact on base-sepolia', () => {
  test('verifies, settles once, and a second settle of the same payload answers the same transaction', async () => {
    const { body, payer } = await v1Body()
    const verified = await postJson(`${services.facilitatorUrl}/verify`, body)
    expect(verified.body).toEqual({ isValid: true, payer })
    const [first, again] = await Promise.all([
      postJson(`${services.facilitatorUrl}/settle`, body),
      postJson(`${services.facilitatorUrl}/settle`, body),
    ])
    expect(first.body).toMatchObject({ success: true, network: 'base-sepolia', payer })
    expect(again.body).toEqual(first.body)
    const later = await postJson(`${services.facilitatorUrl}/settle`, body)
    expect(later.body.transaction).toBe(first.body.transaction)
  })

  test('a v1 network svc does not settle on is invalid_network, at verify and at settle', async () => {
    const { body, payer } = await v1Body('base')
    const verified = await postJson(`${services.facilitatorUrl}/verify`, body)
    expect(verified.body).toEqual({ isValid: false, invalidReason: 'invalid_network', payer })
    const settled = await postJson(`${services.facilitatorUrl}/settle`, body)
    expect(settled.body).toMatchObject({ success: false, errorReason: 'invalid_network', transaction: '' })
  })

  test('a v1 body on the Sandbox chain (which has no v1 name) is invalid_network', async () => {
    const { body } = await v1Body('eip155:845320402', 'base-sepolia')
    const verified = await postJson(`${services.facilitatorUrl}/verify`, body)
    expect(verified.body.invalidReason).toBe('invalid_network')
  })

  test('a v1 payload without an EIP-3009 authorization is refused as invalid_payload (400)', async () => {
    const { body } = await v1Body()
    const broken = { ...body, paymentPayload: { ...body.paymentPayload, payload: { signature: '0x12' } } }
    const refused = await postJson(`${services.facilitatorUrl}/verify`, broken)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ isValid: false, invalidReason: 'invalid_payload' })
  })
})

describe('bad twin input, refused before anything starts', () => {
  test('a twin name svc does not know (a mainnet among them)', async () => {
    await expect(startChainServices({ twins: ['base'] })).rejects.toThrow(
      'unknown twin "base": svc has twins of base-sepolia',
    )
  })

  test("a fork URL whose chain id is not the twin's", async () => {
    // The Sandbox chain's RPC answers chain id 845320402.
    await expect(startChainServices({ twins: ['base-sepolia'], twinForkUrl: services.rpcUrl })).rejects.toThrow(
      `the twin fork URL ${services.rpcUrl} is of chain id 845320402, not 84532 (base-sepolia)`,
    )
  })

  test('a fork URL without a twin', async () => {
    await expect(startChainServices({ twinForkUrl: services.rpcUrl })).rejects.toThrow(
      '--twin-fork-url needs exactly one --twin',
    )
  })
})
