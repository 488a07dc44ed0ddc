import { x402Client } from '@x402/core/client'
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types'
import { authorizationTypes } from '@x402/evm'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import { getAddress, toHex, type Address, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { SandboxChain } from '../../chain/sandbox-chain.js'

/** A fresh buyer key. */
export function newAccount(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey())
}

/** Payment requirements for the sandbox USDC of this chain. */
export function sandboxRequirements(
  chain: SandboxChain,
  overrides: Partial<PaymentRequirements> & { payTo: Address },
): PaymentRequirements {
  return {
    scheme: 'exact',
    network: chain.network,
    asset: chain.usdc.address,
    amount: '10000',
    maxTimeoutSeconds: 300,
    extra: { name: chain.usdc.name, version: chain.usdc.version },
    ...overrides,
  }
}

/** Signs a payment the way buyers do: `x402Client` with `@x402/evm`'s exact client scheme. */
export async function signPayment(
  chain: SandboxChain,
  buyer: LocalAccount,
  requirements: PaymentRequirements,
): Promise<PaymentPayload> {
  const client = new x402Client().register(chain.network, new ExactEvmScheme(buyer))
  client.setSpendControls({
    allowedAssets: [{ network: chain.network, asset: chain.usdc.address, maxAmountPerPayment: '1000000000000' }],
  })
  return client.createPaymentPayload({
    x402Version: 2,
    resource: { url: 'http://api.test/paid' },
    accepts: [requirements],
  })
}

/**
 * Signs an authorization with chosen validity times, using `@x402/evm`'s EIP-3009 typed-data definition
 * (the official client always signs validAfter = 0, so a not-yet-valid payment needs this).
 */
export async function signPaymentWithTimes(
  chain: SandboxChain,
  buyer: LocalAccount,
  requirements: PaymentRequirements,
  times: { validAfter: bigint; validBefore: bigint },
): Promise<PaymentPayload> {
  const authorization = {
    from: buyer.address,
    to: getAddress(requirements.payTo),
    value: BigInt(requirements.amount),
    validAfter: times.validAfter,
    validBefore: times.validBefore,
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await buyer.signTypedData({
    domain: {
      name: chain.usdc.name,
      version: chain.usdc.version,
      chainId: chain.chainId,
      verifyingContract: chain.usdc.address,
    },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  })
  return {
    x402Version: 2,
    resource: { url: 'http://api.test/paid' },
    accepted: requirements,
    payload: {
      signature,
      authorization: {
        ...authorization,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
      },
    },
  }
}

export async function postJson(url: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

export async function getJson(url: string): Promise<{ status: number; body: any }> {
  const response = await fetch(url)
  return { status: response.status, body: await response.json() }
}
