import { createRequire } from 'node:module'
import { x402Client } from '@x402/core/client'
import type { PaymentRequired } from '@x402/core/types'
import { getDefaultAsset } from '@x402/evm'
import { ExactEvmScheme as ExactEvmClient } from '@x402/evm/exact/client'
import { ExactEvmScheme as ExactEvmServer } from '@x402/evm/exact/server'
import { UptoEvmScheme as UptoEvmClient } from '@x402/evm/upto/client'
import { UptoEvmScheme as UptoEvmServer } from '@x402/evm/upto/server'
import { BatchSettlementEvmScheme as BatchClient } from '@x402/evm/batch-settlement/client'
import { BatchSettlementEvmScheme as BatchServer } from '@x402/evm/batch-settlement/server'
import { AuthCaptureEvmScheme as AuthCaptureClient } from '@x402/evm/auth-capture/client'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { beforeAll, describe, expect, it } from 'vitest'
import { sandboxNetwork, usdcAddress } from '../../core/sandbox-usdc.js'
import { registerSandboxUsdc, sandboxUsdcAsset } from '../../sdk/x402-sandbox-usdc.js'

const require = createRequire(import.meta.url)
const domain = { name: 'USDC', version: '2' }
const requirement = {
  scheme: 'exact',
  network: sandboxNetwork,
  asset: usdcAddress,
  amount: '10000',
  payTo: '0x000000000000000000000000000000000000bEEF',
  maxTimeoutSeconds: 60,
}

beforeAll(() => registerSandboxUsdc())

describe('registerSandboxUsdc (svc/register): the sandbox USDC is a default asset of @x402/evm', () => {
  it('in the ESM build: getDefaultAsset, a "$0.01" price, and the EIP-712 domain of an { amount, asset } price', async () => {
    expect(getDefaultAsset(sandboxNetwork)).toEqual(sandboxUsdcAsset)
    const server = new ExactEvmServer()
    expect(await server.parsePrice('$0.01', sandboxNetwork)).toEqual({
      amount: '10000',
      asset: usdcAddress,
      extra: domain,
    })
    const enhanced = await server.enhancePaymentRequirements(
      { ...requirement, extra: {} },
      { x402Version: 2, scheme: 'exact', network: sandboxNetwork },
      [],
    )
    expect(enhanced.extra).toEqual(domain)
  })

  it('in every CommonJS entry point loaded afterwards (each bundles its own table)', async () => {
    expect(require('@x402/evm').getDefaultAsset(sandboxNetwork)).toEqual(sandboxUsdcAsset)
    const { ExactEvmScheme: CjsServer } = require('@x402/evm/exact/server')
    expect(await new CjsServer().parsePrice('$0.01', sandboxNetwork)).toEqual({
      amount: '10000',
      asset: usdcAddress,
      extra: domain,
    })
    expect((await new CjsServer().enhancePaymentRequirements({ ...requirement, extra: {} }, {}, [])).extra).toEqual(
      domain,
    )
    const { ExactEvmScheme: CjsClient } = require('@x402/evm/exact/client')
    expect(
      new CjsClient(privateKeyToAccount(generatePrivateKey())).findDefaultAsset(usdcAddress, sandboxNetwork),
    ).toEqual(sandboxUsdcAsset)
  })

  it('for the upto server scheme too: "$0.01" pays through Permit2, and an { amount, asset } price gets its domain', async () => {
    const server = new UptoEvmServer()
    expect(await server.parsePrice('$0.01', sandboxNetwork)).toEqual({
      amount: '10000',
      asset: usdcAddress,
      extra: { ...domain, assetTransferMethod: 'permit2' },
    })
    const upto = { ...requirement, scheme: 'upto', extra: {} }
    const kind = {
      x402Version: 2,
      scheme: 'upto',
      network: sandboxNetwork,
      extra: { facilitatorAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' },
    }
    expect((await server.enhancePaymentRequirements(upto, kind, [])).extra).toEqual({
      ...domain,
      assetTransferMethod: 'permit2',
      facilitatorAddress: kind.extra.facilitatorAddress,
    })
    const { UptoEvmScheme: CjsServer } = require('@x402/evm/upto/server')
    expect((await new CjsServer().enhancePaymentRequirements(upto, kind, [])).extra).toMatchObject(domain)
    const { UptoEvmScheme: CjsClient } = require('@x402/evm/upto/client')
    expect(
      new CjsClient(privateKeyToAccount(generatePrivateKey())).findDefaultAsset(usdcAddress, sandboxNetwork),
    ).toEqual(sandboxUsdcAsset)
  })

  it("a buyer's default spend controls accept it, for upto as for exact", async () => {
    const upto = new x402Client().register('eip155:*', new UptoEvmClient(privateKeyToAccount(generatePrivateKey())))
    const accepts = [
      {
        ...requirement,
        scheme: 'upto',
        extra: {
          ...domain,
          assetTransferMethod: 'permit2',
          facilitatorAddress: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        },
      },
    ]
    const signed = await upto.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://weather.dev.localhost/' },
      accepts,
    })
    expect(signed.payload).toHaveProperty('permit2Authorization')
  })

  it('for the batch-settlement schemes too: "$0.01" prices, the domain of an { amount, asset } price, a buyer\'s spend controls', async () => {
    const authorizer = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
    const kind = {
      x402Version: 2,
      scheme: 'batch-settlement',
      network: sandboxNetwork,
      extra: { receiverAuthorizer: authorizer },
    }
    const server = new BatchServer('0x000000000000000000000000000000000000bEEF')
    expect((await server.parsePrice('$0.01', sandboxNetwork)).asset).toBe(usdcAddress)
    const batch = { ...requirement, scheme: 'batch-settlement', extra: {} }
    expect((await server.enhancePaymentRequirements(batch, kind, [])).extra).toMatchObject(domain)
    const { BatchSettlementEvmScheme: CjsServer } = require('@x402/evm/batch-settlement/server')
    expect(
      (await new CjsServer('0x000000000000000000000000000000000000bEEF').enhancePaymentRequirements(batch, kind, []))
        .extra,
    ).toMatchObject(domain)
    const buyer = new BatchClient(privateKeyToAccount(generatePrivateKey()))
    expect(buyer.findDefaultAsset(usdcAddress, sandboxNetwork)).toEqual(sandboxUsdcAsset)
  })

  it("for the auth-capture client too, in both builds: a buyer's default spend controls accept it on eip155:845320402", async () => {
    const buyer = privateKeyToAccount(generatePrivateKey())
    expect(new AuthCaptureClient(buyer).findDefaultAsset(usdcAddress, sandboxNetwork)).toEqual(sandboxUsdcAsset)
    const { AuthCaptureEvmScheme: CjsClient } = require('@x402/evm/auth-capture/client')
    expect(new CjsClient(buyer).findDefaultAsset(usdcAddress, sandboxNetwork)).toEqual(sandboxUsdcAsset)
    const client = new x402Client().register('eip155:*', new AuthCaptureClient(buyer))
    const signed = await client.createPaymentPayload({
      x402Version: 2,
      resource: { url: 'http://weather.dev.localhost/' },
      accepts: [
        {
          ...requirement,
          scheme: 'auth-capture',
          extra: {
            ...domain,
            captureAuthorizer: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
            receiverAuthorizer: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
            paymentFlow: 'escrow',
            captureMode: 'sync',
            captureDeadline: Math.floor(Date.now() / 1000) + 3600,
            refundDeadline: Math.floor(Date.now() / 1000) + 7200,
            minFeeBps: 0,
            maxFeeBps: 0,
            feeRecipient: '0x0000000000000000000000000000000000000000',
          },
        },
      ],
    })
    expect(signed.payload).toHaveProperty('authorization')
    expect(signed.accepted).toMatchObject({ scheme: 'auth-capture', network: sandboxNetwork, asset: usdcAddress })
  })

  it("a buyer's default spend controls accept it", async () => {
    const client = new x402Client().register('eip155:*', new ExactEvmClient(privateKeyToAccount(generatePrivateKey())))
    const paymentRequired: PaymentRequired = {
      x402Version: 2,
      resource: { url: 'http://weather.dev.localhost/' },
      accepts: [{ ...requirement, extra: domain }],
    }
    const payload = await client.createPaymentPayload(paymentRequired)
    expect(payload.accepted).toMatchObject({ network: sandboxNetwork, asset: usdcAddress })
  })

  it('leaves other networks and assets, and a given domain, as they were', async () => {
    const server = new ExactEvmServer()
    const other = { ...requirement, asset: '0x0000000000000000000000000000000000000001', extra: {} }
    expect(
      (await server.enhancePaymentRequirements(other, { x402Version: 2, scheme: 'exact', network: sandboxNetwork }, []))
        .extra,
    ).toEqual({})
    const forked = { ...requirement, extra: { name: 'USD Coin', version: '2' } }
    expect(
      (
        await server.enhancePaymentRequirements(
          forked,
          { x402Version: 2, scheme: 'exact', network: sandboxNetwork },
          [],
        )
      ).extra,
    ).toEqual(forked.extra)
    expect(getDefaultAsset('eip155:8453').name).toBe('USD Coin')
  })
})
