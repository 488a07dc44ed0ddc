/**
 * The relayer's signature check (chain/relayer.ts): an EOA's EIP-712 signature is recovered locally and remembered
 * by the whole typed data, so a remembered verdict never answers for another message.
 */
import { authorizationTypes } from '@x402/evm'
import { toHex, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { startChain, type SandboxChain } from '../../chain/chain.js'
import { createRelayerSigner } from '../../chain/relayer.js'
import { newAccount } from '../helpers/payments.js'

let chain: SandboxChain
beforeAll(async () => {
  chain = await startChain()
})
afterAll(() => chain?.stop())

function typedData(from: Address, value: bigint) {
  return {
    domain: { name: chain.usdc.name, version: chain.usdc.version, chainId: chain.chainId, verifyingContract: chain.usdc.address },
    types: authorizationTypes,
    primaryType: 'TransferWithAuthorization' as const,
    message: { from, to: newAccount().address, value, validAfter: 0n, validBefore: 2n ** 40n, nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) },
  }
}

describe('verifyTypedData of the relayer signer', () => {
  test('an EOA: its own signature is valid, another signer\'s is not, and a remembered verdict holds for its message only', async () => {
    const signer = createRelayerSigner(chain)
    const buyer = newAccount()
    const data = typedData(buyer.address, 10_000n)
    const signature = await buyer.signTypedData(data)
    const check = (address: Address, message = data.message) => signer.verifyTypedData({ ...data, message, address, signature } as never)

    expect(await check(buyer.address)).toBe(true)
    // Asked again (settle checks what verify checked): the same verdict.
    expect(await check(buyer.address)).toBe(true)
    expect(await check(newAccount().address)).toBe(false)
    // The same signature over another amount: not the buyer's.
    expect(await check(buyer.address, { ...data.message, value: 10_001n })).toBe(false)
    // And the answers agree with viem's ERC-6492 check on the chain.
    expect(await chain.client.verifyTypedData({ ...data, address: buyer.address, signature })).toBe(true)
    expect(await chain.client.verifyTypedData({ ...data, message: { ...data.message, value: 10_001n }, address: buyer.address, signature })).toBe(false)
  })

  test('a malformed signature is invalid, not an error', async () => {
    const signer = createRelayerSigner(chain)
    const buyer = newAccount()
    const data = typedData(buyer.address, 1n)
    expect(await signer.verifyTypedData({ ...data, address: buyer.address, signature: '0x1234' } as never)).toBe(false)
  })
})
