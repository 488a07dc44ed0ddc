/**
 * The relayer (chain/relayer.ts): an EOA's EIP-712 signature is recovered locally and remembered by the whole typed
 * data, so a remembered verdict never answers for another message; a transfer simulated at verify is not simulated
 * again at settle, and if it reverts after all, the reverted transaction is explained by its revert reason.
 */
import { authorizationTypes } from '@x402/evm'
import { toHex, type Address } from 'viem'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SandboxChain } from '../../chain/chain.js'
import { sandboxUsdcAbi } from '../../chain/contracts/generated/sandboxUsdc.js'
import { createRelayerSigner } from '../../chain/relayer.js'
import { startChainServices, type ChainServices } from '../../chain/services.js'
import { newAccount, sandboxRequirements, signPayment } from '../helpers/payments.js'

let services: ChainServices
let chain: SandboxChain
beforeAll(async () => {
  services = await startChainServices()
  chain = services.chain
})
afterAll(() => services?.stop())

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
    expect(settled).toMatchObject({ success: false, errorReason: 'invalid_exact_evm_insufficient_balance', transaction: '' })
    const balance = await chain.client.readContract({ address: chain.usdc.address, abi: sandboxUsdcAbi, functionName: 'balanceOf', args: [buyer.address] })
    expect(balance).toBe(0n)
    const nonce = (first.payload as { authorization: { nonce: `0x${string}` } }).authorization.nonce
    expect(await chain.client.readContract({ address: chain.usdc.address, abi: sandboxUsdcAbi, functionName: 'authorizationState', args: [buyer.address, nonce] })).toBe(false)
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
    expect(await services.facilitator.verify(payment, requirements)).toMatchObject({ isValid: false, invalidReason: 'invalid_exact_evm_nonce_already_used' })
  })
})
