/**
 * The commerce-payments contracts on a twin (Base Sepolia, offline): installed at the same v1.1 addresses as on the
 * Sandbox chain, and an official `AuthCaptureEvmScheme` payload for the twin's network and USDC authorizes and captures
 * there. The rules themselves are tested on the Sandbox chain (contracts.test.ts).
 */
import { AUTH_CAPTURE_ESCROW_V1_0_ADDRESS } from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import { createWalletClient, http, parseEther, zeroAddress, type Address, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { authCaptureAddresses } from '../../../chain/auth-capture/index.js'
import { authCaptureEscrowAbi as abi } from '../../../chain/contracts/auth-capture-escrow.generated.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { startTwin, type RunningTwin } from '../../../chain/twin.js'
import { twinSpec } from '../../../core/twins.js'

let twin: RunningTwin

beforeAll(async () => {
  twin = await startTwin(twinSpec('base-sepolia'))
})

afterAll(async () => {
  await twin?.stop()
})

test('a twin has the contracts at the v1.1 addresses (none at v1.0), and an official payload authorizes and captures', async () => {
  const { chain } = twin
  for (const address of Object.values(authCaptureAddresses))
    expect((await chain.client.getCode({ address }))?.length, address).toBeGreaterThan(2)
  expect(await chain.client.getCode({ address: AUTH_CAPTURE_ESCROW_V1_0_ADDRESS as Address })).toBeUndefined()

  const operator = privateKeyToAccount(generatePrivateKey())
  await chain.testClient.setBalance({ address: operator.address, value: parseEther('1') })
  const payer = privateKeyToAccount(generatePrivateKey())
  await chain.usdcFunder.fund(payer.address, 10_000n)
  const payTo = privateKeyToAccount(generatePrivateKey()).address
  const now = Math.floor(Date.now() / 1000)
  const extra = {
    name: chain.usdc.name,
    version: chain.usdc.version,
    captureAuthorizer: operator.address,
    captureDeadline: now + 3_600,
    refundDeadline: now + 7_200,
    minFeeBps: 0,
    maxFeeBps: 0,
    feeRecipient: zeroAddress,
  }
  const requirements = {
    scheme: 'auth-capture',
    network: chain.network,
    amount: '1500',
    asset: chain.usdc.address,
    payTo,
    maxTimeoutSeconds: 300,
    extra,
  }
  const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, requirements)
  const { authorization, signature, salt } = payload as {
    authorization: { validBefore: string }
    signature: Hex
    salt: Hex
  }
  const info = {
    operator: operator.address,
    payer: payer.address,
    receiver: payTo,
    token: chain.usdc.address,
    maxAmount: 1_500n,
    preApprovalExpiry: Number(authorization.validBefore),
    authorizationExpiry: extra.captureDeadline,
    refundExpiry: extra.refundDeadline,
    minFeeBps: 0,
    maxFeeBps: 0,
    feeReceiver: zeroAddress,
    salt: BigInt(salt),
  }
  const wallet = createWalletClient({ account: operator, chain: chain.chain, transport: http(chain.rpcUrl) })
  for (const [functionName, args] of [
    ['authorize', [info, 1_500n, authCaptureAddresses.erc3009Collector, signature]],
    ['capture', [info, 1_000n, 0n, zeroAddress]],
  ] as const) {
    const hash = await wallet.writeContract({ address: authCaptureAddresses.escrow, abi, functionName, args } as never)
    expect((await chain.client.waitForTransactionReceipt({ hash })).status, functionName).toBe('success')
  }
  const balanceOf = (address: Address) =>
    chain.client.readContract({
      address: chain.usdc.address,
      abi: sandboxUsdcAbi,
      functionName: 'balanceOf',
      args: [address],
    })
  expect(await balanceOf(payer.address)).toBe(8_500n)
  expect(await balanceOf(payTo)).toBe(1_000n)
  const hash = await chain.client.readContract({
    address: authCaptureAddresses.escrow,
    abi,
    functionName: 'getHash',
    args: [info],
  })
  expect(
    await chain.client.readContract({
      address: authCaptureAddresses.escrow,
      abi,
      functionName: 'paymentState',
      args: [hash],
    }),
  ).toEqual([true, 500n, 1_000n])
})
