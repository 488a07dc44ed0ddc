/**
 * svc's Permit2 and x402's exact and upto Permit2 proxies (chain/contracts/) at their official addresses on a real
 * Anvil, called with `@x402/evm`'s own ABIs and EIP-712 types: the runtime code placed with anvil_setCode serves as the
 * deployed contracts do (domain separator from the chain id and the address, nonces in a bitmap, the witness binding
 * the destination and, for upto, the facilitator).
 */
import { randomBytes } from 'node:crypto'
import {
  PERMIT2_ADDRESS,
  permit2WitnessTypes,
  uptoPermit2WitnessTypes,
  x402ExactPermit2ProxyABI,
  x402ExactPermit2ProxyAddress,
  x402UptoPermit2ProxyABI,
  x402UptoPermit2ProxyAddress,
} from '@x402/evm'
import {
  type BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  hashDomain,
  http,
  maxUint256,
  parseEther,
  parseSignature,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'
import { permit2Abi } from '../../../chain/contracts/permit2.generated.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { x402UptoPermit2ProxyAbi } from '../../../chain/contracts/x402-upto-permit2-proxy.generated.js'
import { sandboxChainId } from '../../../core/sandbox-usdc.js'

let chain: SandboxChain
let usdc: Address

beforeAll(async () => {
  chain = await startChain()
  usdc = chain.usdc.address
})

afterAll(async () => {
  await chain?.stop()
})

const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))
const randomNonce = () => BigInt(toHex(randomBytes(32)))
const permit2Domain = { name: 'Permit2', chainId: sandboxChainId, verifyingContract: PERMIT2_ADDRESS } as const

async function newAccount(usdcAmount = 0n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await chain.testClient.setBalance({ address: account.address, value: parseEther('10') })
  if (usdcAmount > 0n) await chain.usdcFunder.fund(account.address, usdcAmount)
  return account
}

const wallet = (account: PrivateKeyAccount) =>
  createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) })
const balanceOf = (address: Address) =>
  chain.client.readContract({ address: usdc, abi: sandboxUsdcAbi, functionName: 'balanceOf', args: [address] })

async function approvePermit2(payer: PrivateKeyAccount) {
  const hash = await wallet(payer).writeContract({
    address: usdc,
    abi: sandboxUsdcAbi,
    functionName: 'approve',
    args: [PERMIT2_ADDRESS, maxUint256],
  })
  expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success')
}

type Permit = { permitted: { token: Address; amount: bigint }; nonce: bigint; deadline: bigint }

function permitFor(amount: bigint): Permit {
  return { permitted: { token: usdc, amount }, nonce: randomNonce(), deadline: nowSeconds() + 600n }
}

function signExact(payer: PrivateKeyAccount, permit: Permit, witness: { to: Address; validAfter: bigint }) {
  return payer.signTypedData({
    domain: permit2Domain,
    types: permit2WitnessTypes,
    primaryType: 'PermitWitnessTransferFrom',
    message: { ...permit, spender: x402ExactPermit2ProxyAddress, witness },
  })
}

function signUpto(
  payer: PrivateKeyAccount,
  permit: Permit,
  witness: { to: Address; facilitator: Address; validAfter: bigint },
) {
  return payer.signTypedData({
    domain: permit2Domain,
    types: uptoPermit2WitnessTypes,
    primaryType: 'PermitWitnessTransferFrom',
    message: { ...permit, spender: x402UptoPermit2ProxyAddress, witness },
  })
}

/** Sends `settle` on the exact proxy from `caller` and waits for it. */
async function settleExact(
  caller: PrivateKeyAccount,
  args: readonly [Permit, Address, { to: Address; validAfter: bigint }, Hex],
) {
  const hash = await wallet(caller).writeContract({
    address: x402ExactPermit2ProxyAddress,
    abi: x402ExactPermit2ProxyABI,
    functionName: 'settle',
    args,
  })
  return chain.client.waitForTransactionReceipt({ hash })
}

/** The custom error (or revert string) a simulated call reverts with. */
async function revertOf(call: Promise<unknown>): Promise<string> {
  try {
    await call
  } catch (error) {
    const reverted = (error as BaseError).walk(
      (e) => e instanceof ContractFunctionRevertedError,
    ) as ContractFunctionRevertedError | null
    if (reverted?.data?.errorName === 'Error') return String(reverted.data.args?.[0])
    if (reverted?.data?.errorName) return reverted.data.errorName
    return (error as Error).message.split('\n')[0]!
  }
  throw new Error('expected the call to revert')
}

describe('the Permit2 contracts', () => {
  test('sit at the official addresses; Permit2 answers its EIP-712 domain and each proxy names it', async () => {
    for (const address of [PERMIT2_ADDRESS, x402ExactPermit2ProxyAddress, x402UptoPermit2ProxyAddress])
      expect(await chain.client.getCode({ address: address as Address })).toMatch(/^0x[0-9a-f]{100,}/)
    expect(
      await chain.client.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: 'DOMAIN_SEPARATOR' }),
    ).toBe(
      hashDomain({
        domain: { ...permit2Domain, chainId: BigInt(sandboxChainId) },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    )
    expect(
      await chain.client.readContract({
        address: x402ExactPermit2ProxyAddress,
        abi: x402ExactPermit2ProxyABI,
        functionName: 'PERMIT2',
      }),
    ).toBe(PERMIT2_ADDRESS)
    expect(
      await chain.client.readContract({
        address: x402UptoPermit2ProxyAddress,
        abi: x402UptoPermit2ProxyABI,
        functionName: 'PERMIT2',
      }),
    ).toBe(PERMIT2_ADDRESS)
    expect(
      await chain.client.readContract({
        address: x402ExactPermit2ProxyAddress,
        abi: x402ExactPermit2ProxyABI,
        functionName: 'WITNESS_TYPE_STRING',
      }),
    ).toBe('Witness witness)TokenPermissions(address token,uint256 amount)Witness(address to,uint256 validAfter)')
  })
})

describe('the exact proxy', () => {
  test('moves exactly the permitted amount to the witness destination, once: the nonce is spent in the bitmap', async () => {
    const [payer, seller, relayer] = await Promise.all([newAccount(1_000_000n), newAccount(), newAccount()])
    await approvePermit2(payer)
    const permit = permitFor(250_000n)
    const witness = { to: seller.address, validAfter: 0n }
    const signature = await signExact(payer, permit, witness)
    const receipt = await settleExact(relayer, [permit, payer.address, witness, signature])
    expect(receipt.status).toBe('success')
    expect(await balanceOf(seller.address)).toBe(250_000n)
    expect(await balanceOf(payer.address)).toBe(750_000n)
    const bitmap = await chain.client.readContract({
      address: PERMIT2_ADDRESS,
      abi: permit2Abi,
      functionName: 'nonceBitmap',
      args: [payer.address, permit.nonce >> 8n],
    })
    expect(bitmap & (1n << (permit.nonce & 0xffn))).not.toBe(0n)

    const replay = chain.client.simulateContract({
      account: relayer,
      address: x402ExactPermit2ProxyAddress,
      abi: [...x402ExactPermit2ProxyABI, ...permit2Abi],
      functionName: 'settle',
      args: [permit, payer.address, witness, signature],
    })
    expect(await revertOf(replay)).toBe('InvalidNonce')
  })

  test('refuses a redirected destination, an expired permit, a payment before validAfter, and a payer without allowance', async () => {
    const [payer, seller, thief, relayer] = await Promise.all([
      newAccount(1_000_000n),
      newAccount(),
      newAccount(),
      newAccount(),
    ])
    const abi = [...x402ExactPermit2ProxyABI, ...permit2Abi]
    const simulate = (args: readonly [Permit, Address, { to: Address; validAfter: bigint }, Hex]) =>
      chain.client.simulateContract({
        account: relayer,
        address: x402ExactPermit2ProxyAddress,
        abi,
        functionName: 'settle',
        args,
      })

    const permit = permitFor(10_000n)
    const signature = await signExact(payer, permit, { to: seller.address, validAfter: 0n })
    expect(await revertOf(simulate([permit, payer.address, { to: seller.address, validAfter: 0n }, signature]))).toBe(
      'ERC20: transfer amount exceeds allowance',
    )
    await approvePermit2(payer)
    expect(await revertOf(simulate([permit, payer.address, { to: thief.address, validAfter: 0n }, signature]))).toBe(
      'InvalidSigner',
    )

    const expired = { ...permitFor(10_000n), deadline: nowSeconds() - 10n }
    expect(
      await revertOf(
        simulate([
          expired,
          payer.address,
          { to: seller.address, validAfter: 0n },
          await signExact(payer, expired, { to: seller.address, validAfter: 0n }),
        ]),
      ),
    ).toBe('SignatureExpired')
    const later = { to: seller.address, validAfter: nowSeconds() + 3600n }
    const early = permitFor(10_000n)
    expect(await revertOf(simulate([early, payer.address, later, await signExact(payer, early, later)]))).toBe(
      'PaymentTooEarly',
    )
  })

  test("settleWithPermit: the payer's EIP-2612 permit approves Permit2 in the same transaction (no approval sent before)", async () => {
    const [payer, seller, relayer] = await Promise.all([newAccount(100_000n), newAccount(), newAccount()])
    const permit = permitFor(40_000n)
    const witness = { to: seller.address, validAfter: 0n }
    const signature = await signExact(payer, permit, witness)
    const eip2612 = await payer.signTypedData({
      domain: { name: chain.usdc.name, version: chain.usdc.version, chainId: sandboxChainId, verifyingContract: usdc },
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: payer.address, spender: PERMIT2_ADDRESS, value: 40_000n, nonce: 0n, deadline: permit.deadline },
    })
    const { v, r, s } = parseSignature(eip2612)
    const permit2612 = { value: 40_000n, deadline: permit.deadline, r, s, v: Number(v) }

    const mismatch = chain.client.simulateContract({
      account: relayer,
      address: x402ExactPermit2ProxyAddress,
      abi: x402ExactPermit2ProxyABI,
      functionName: 'settleWithPermit',
      args: [{ ...permit2612, value: 1n }, permit, payer.address, witness, signature],
    })
    expect(await revertOf(mismatch)).toBe('Permit2612AmountMismatch')

    const hash = await wallet(relayer).writeContract({
      address: x402ExactPermit2ProxyAddress,
      abi: x402ExactPermit2ProxyABI,
      functionName: 'settleWithPermit',
      args: [permit2612, permit, payer.address, witness, signature],
    })
    expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await balanceOf(seller.address)).toBe(40_000n)
  })
})

describe('the upto proxy', () => {
  test('moves any amount up to the permitted one, only when sent by the facilitator the witness names', async () => {
    const [payer, seller, facilitator, other] = await Promise.all([
      newAccount(1_000_000n),
      newAccount(),
      newAccount(),
      newAccount(),
    ])
    await approvePermit2(payer)
    const abi = [...x402UptoPermit2ProxyAbi, ...permit2Abi]
    const permit = permitFor(500_000n)
    const witness = { to: seller.address, facilitator: facilitator.address, validAfter: 0n }
    const signature = await signUpto(payer, permit, witness)
    const simulate = (caller: PrivateKeyAccount, amount: bigint) =>
      chain.client.simulateContract({
        account: caller,
        address: x402UptoPermit2ProxyAddress,
        abi,
        functionName: 'settle',
        args: [permit, amount, payer.address, witness, signature],
      })

    expect(await revertOf(simulate(other, 100_000n))).toBe('UnauthorizedFacilitator')
    expect(await revertOf(simulate(facilitator, 500_001n))).toBe('AmountExceedsPermitted')
    expect(await revertOf(simulate(facilitator, 0n))).toBe('InvalidAmount')

    const hash = await wallet(facilitator).writeContract({
      address: x402UptoPermit2ProxyAddress,
      abi: x402UptoPermit2ProxyABI,
      functionName: 'settle',
      args: [permit, 123_456n, payer.address, witness, signature],
    })
    expect((await chain.client.waitForTransactionReceipt({ hash })).status).toBe('success')
    expect(await balanceOf(seller.address)).toBe(123_456n)
    expect(await balanceOf(payer.address)).toBe(1_000_000n - 123_456n)
    expect(await revertOf(simulate(facilitator, 1n))).toBe('InvalidNonce')
  })
})
