/**
 * svc's x402BatchSettlement and its deposit collectors (chain/contracts/) at the official addresses on a real Anvil,
 * called with `@x402/evm`'s own ABI, channel id and EIP-712 types: the rules of a channel (deposits through the
 * collectors, cumulative vouchers, the receiver authorizer's claims and refunds, the refund nonce, the withdraw delay
 * judged by the chain's time).
 */
import { randomBytes } from 'node:crypto'
import { BATCH_SETTLEMENT_ADDRESS, claimBatchTypes, PERMIT2_ADDRESS, permit2WitnessTypes, refundTypes } from '@x402/evm'
import { computeChannelId, signVoucher } from '@x402/evm/batch-settlement/client'
import {
  type BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  encodeAbiParameters,
  http,
  keccak256,
  maxUint256,
  parseEther,
  toHex,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { batchSettlementAddresses } from '../../../chain/batch-settlement/contracts.js'
import { permit2Abi } from '../../../chain/contracts/permit2.generated.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { x402BatchSettlementAbi as abi } from '../../../chain/contracts/x402-batch-settlement.generated.js'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'

let chain: SandboxChain
let usdc: Address
/** The receiver's authorizer (signs claims and refunds) and a relayer that sends what it signed. */
let authorizer: PrivateKeyAccount
let relayer: PrivateKeyAccount

beforeAll(async () => {
  chain = await startChain()
  usdc = chain.usdc.address
  authorizer = privateKeyToAccount(generatePrivateKey())
  relayer = await newAccount()
})

afterAll(async () => {
  await chain?.stop()
})

const domain = () =>
  ({
    name: 'x402 Batch Settlement',
    version: '1',
    chainId: chain.chainId,
    verifyingContract: BATCH_SETTLEMENT_ADDRESS,
  }) as const
const random32 = () => toHex(randomBytes(32))
/** x402's Permit2 transfer with the deposit collector's witness in place of the exact scheme's (`to`, `validAfter`). */
const depositPermitTypes = {
  PermitWitnessTransferFrom: [
    ...permit2WitnessTypes.PermitWitnessTransferFrom.filter((field) => field.name !== 'witness'),
    { name: 'witness', type: 'DepositWitness' },
  ],
  TokenPermissions: permit2WitnessTypes.TokenPermissions,
  DepositWitness: [{ name: 'channelId', type: 'bytes32' }],
} as const

async function newAccount(usdcAmount = 0n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await chain.testClient.setBalance({ address: account.address, value: parseEther('10') })
  if (usdcAmount > 0n) await chain.usdcFunder.fund(account.address, usdcAmount)
  return account
}

const balanceOf = (address: Address) =>
  chain.client.readContract({ address: usdc, abi: sandboxUsdcAbi, functionName: 'balanceOf', args: [address] })
const channelOf = (id: Hex) =>
  chain.client.readContract({ address: BATCH_SETTLEMENT_ADDRESS, abi, functionName: 'channels', args: [id] })

/** Sends a call to the settlement contract from `from` and answers its receipt (a revert throws, with its error). */
async function send(from: PrivateKeyAccount, functionName: string, args: readonly unknown[]) {
  // Permit2's errors too: a Permit2 deposit passes on Permit2's revert.
  const withErrors = [...abi, ...permit2Abi.filter((item) => item.type === 'error')]
  const params = { address: BATCH_SETTLEMENT_ADDRESS, abi: withErrors, functionName, args, account: from } as never
  const { request } = await chain.client.simulateContract(params)
  const wallet = createWalletClient({ account: from, chain: chain.chain, transport: http(chain.rpcUrl) })
  const hash = await wallet.writeContract(request)
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return receipt
}

/** The custom error a call reverts with. */
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

type Channel = {
  payer: PrivateKeyAccount
  receiver: Address
  config: {
    payer: Address
    payerAuthorizer: Address
    receiver: Address
    receiverAuthorizer: Address
    token: Address
    withdrawDelay: number
    salt: Hex
  }
  id: Hex
}

/** A channel of a new payer holding `funds`, to a new receiver, with the test's receiver authorizer. */
async function newChannel(funds = 100_000n): Promise<Channel> {
  const payer = await newAccount(funds)
  const receiver = privateKeyToAccount(generatePrivateKey()).address
  const config = {
    payer: payer.address,
    payerAuthorizer: payer.address,
    receiver,
    receiverAuthorizer: authorizer.address,
    token: usdc,
    withdrawDelay: 900,
    salt: random32(),
  }
  return { payer, receiver, config, id: computeChannelId(config, chain.chainId) as Hex }
}

/** Deposits through the ERC-3009 collector with the payer's `ReceiveWithAuthorization` bound to the channel. */
async function depositErc3009(channel: Channel, amount: bigint) {
  const salt = BigInt(random32())
  const validBefore = BigInt(Math.floor(Date.now() / 1000) + 600)
  const signature = await channel.payer.signTypedData({
    domain: { name: chain.usdc.name, version: chain.usdc.version, chainId: chain.chainId, verifyingContract: usdc },
    types: {
      ReceiveWithAuthorization: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType: 'ReceiveWithAuthorization',
    message: {
      from: channel.payer.address,
      to: batchSettlementAddresses.erc3009Collector,
      value: amount,
      validAfter: 0n,
      validBefore,
      nonce: keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [channel.id, salt])),
    },
  })
  const collectorData = encodeAbiParameters(
    [{ type: 'uint256' }, { type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }],
    [0n, validBefore, salt, signature],
  )
  return send(relayer, 'deposit', [channel.config, amount, batchSettlementAddresses.erc3009Collector, collectorData])
}

const voucher = async (channel: Channel, max: bigint, signer = channel.payer) =>
  (await signVoucher(signer, channel.id, max.toString(), chain.network)).signature as Hex

const claimRow = (channel: Channel, max: bigint, signature: Hex, totalClaimed: bigint) => ({
  voucher: { channel: channel.config, maxClaimableAmount: max },
  signature,
  totalClaimed,
})
type ClaimRow = ReturnType<typeof claimRow>

const signClaims = (rows: ClaimRow[], signer = authorizer) =>
  signer.signTypedData({
    domain: domain(),
    types: claimBatchTypes,
    primaryType: 'ClaimBatch',
    message: {
      claims: rows.map((row) => ({
        channelId: computeChannelId(row.voucher.channel, chain.chainId) as Hex,
        maxClaimableAmount: row.voucher.maxClaimableAmount,
        totalClaimed: row.totalClaimed,
      })),
    },
  })

const signRefund = (channel: Channel, nonce: bigint, amount: bigint, signer = authorizer) =>
  signer.signTypedData({
    domain: domain(),
    types: refundTypes,
    primaryType: 'Refund',
    message: { channelId: channel.id, nonce, amount },
  })

describe('x402BatchSettlement', () => {
  test('sits at the official address with its collectors; its channel id is the package’s', async () => {
    for (const address of Object.values(batchSettlementAddresses))
      expect((await chain.client.getCode({ address }))?.length ?? 0).toBeGreaterThan(2)
    const channel = await newChannel()
    const onChain = await chain.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi,
      functionName: 'getChannelId',
      args: [channel.config],
    })
    expect(onChain).toBe(channel.id)
  })

  test('a deposit through the ERC-3009 collector moves the payer’s USDC into the channel; its authorization is used once', async () => {
    const channel = await newChannel(50_000n)
    await depositErc3009(channel, 20_000n)
    expect(await channelOf(channel.id)).toEqual([20_000n, 0n])
    expect(await balanceOf(channel.payer.address)).toBe(30_000n)
    await depositErc3009(channel, 5_000n)
    expect(await channelOf(channel.id)).toEqual([25_000n, 0n])
  })

  test('a deposit through the Permit2 collector is bound to its channel by the DepositWitness', async () => {
    const channel = await newChannel(50_000n)
    const payerWallet = createWalletClient({
      account: channel.payer,
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    })
    await chain.client.waitForTransactionReceipt({
      hash: await payerWallet.writeContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'approve',
        args: [PERMIT2_ADDRESS, maxUint256],
      }),
    })
    const permitFor = async (channelId: Hex) => {
      const nonce = BigInt(random32())
      const deadline = BigInt(Math.floor(Date.now() / 1000) + 600)
      const signature = await channel.payer.signTypedData({
        domain: { name: 'Permit2', chainId: chain.chainId, verifyingContract: PERMIT2_ADDRESS },
        types: depositPermitTypes,
        primaryType: 'PermitWitnessTransferFrom',
        message: {
          permitted: { token: usdc, amount: 10_000n },
          spender: batchSettlementAddresses.permit2Collector,
          nonce,
          deadline,
          witness: { channelId },
        },
      })
      return encodeAbiParameters(
        [{ type: 'uint256' }, { type: 'uint256' }, { type: 'bytes' }, { type: 'bytes' }],
        [nonce, deadline, signature, '0x'],
      )
    }
    const collector = batchSettlementAddresses.permit2Collector
    // Signed for another channel: Permit2 recovers another signer.
    const other = await permitFor(random32())
    expect(await revertOf(send(relayer, 'deposit', [channel.config, 10_000n, collector, other]))).toBe('InvalidSigner')
    await send(relayer, 'deposit', [channel.config, 10_000n, collector, await permitFor(channel.id)])
    expect(await channelOf(channel.id)).toEqual([10_000n, 0n])
  })

  test('vouchers are cumulative: a claim below what was claimed is refused, the same one changes nothing', async () => {
    const channel = await newChannel()
    await depositErc3009(channel, 10_000n)
    const sig3000 = await voucher(channel, 3_000n)
    const row = claimRow(channel, 3_000n, sig3000, 3_000n)
    await send(relayer, 'claimWithSignature', [[row], await signClaims([row])])
    expect(await channelOf(channel.id)).toEqual([10_000n, 3_000n])

    const lower = claimRow(channel, 2_000n, await voucher(channel, 2_000n), 2_000n)
    expect(await revertOf(send(relayer, 'claimWithSignature', [[lower], await signClaims([lower])]))).toBe(
      'ClaimBelowClaimed',
    )
    await send(relayer, 'claimWithSignature', [[row], await signClaims([row])])
    expect(await channelOf(channel.id)).toEqual([10_000n, 3_000n])

    // Above the voucher's ceiling, or above the deposit.
    const above = claimRow(channel, 4_000n, await voucher(channel, 4_000n), 4_500n)
    expect(await revertOf(send(relayer, 'claimWithSignature', [[above], await signClaims([above])]))).toBe(
      'ClaimAboveVoucher',
    )
    const beyond = claimRow(channel, 12_000n, await voucher(channel, 12_000n), 12_000n)
    expect(await revertOf(send(relayer, 'claimWithSignature', [[beyond], await signClaims([beyond])]))).toBe(
      'ClaimAboveBalance',
    )
  })

  test('only the receiver authorizer authorizes a claim; only the payer’s key signs a voucher', async () => {
    const channel = await newChannel()
    await depositErc3009(channel, 10_000n)
    const row = claimRow(channel, 1_000n, await voucher(channel, 1_000n), 1_000n)
    const stranger = privateKeyToAccount(generatePrivateKey())
    expect(await revertOf(send(relayer, 'claimWithSignature', [[row], await signClaims([row], stranger)]))).toBe(
      'InvalidAuthorizerSignature',
    )
    // The signature covers the amounts: a relayer cannot raise them.
    const raised = { ...row, totalClaimed: 900n }
    expect(await revertOf(send(relayer, 'claimWithSignature', [[raised], await signClaims([row])]))).toBe(
      'InvalidAuthorizerSignature',
    )
    expect(await revertOf(send(relayer, 'claim', [[row]]))).toBe('NotReceiverOrAuthorizer')
    const forged = claimRow(channel, 1_000n, await voucher(channel, 1_000n, stranger), 1_000n)
    expect(await revertOf(send(relayer, 'claimWithSignature', [[forged], await signClaims([forged])]))).toBe(
      'InvalidVoucherSignature',
    )
    expect(await channelOf(channel.id)).toEqual([10_000n, 0n])
  })

  test('settle sends what was claimed to the receiver, once', async () => {
    const channel = await newChannel()
    await depositErc3009(channel, 10_000n)
    const row = claimRow(channel, 2_500n, await voucher(channel, 2_500n), 2_500n)
    await send(relayer, 'claimWithSignature', [[row], await signClaims([row])])
    const receipt = await send(relayer, 'settle', [channel.receiver, usdc])
    expect(receipt.logs.length).toBeGreaterThan(0)
    expect(await balanceOf(channel.receiver)).toBe(2_500n)
    const state = await chain.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi,
      functionName: 'receivers',
      args: [channel.receiver, usdc],
    })
    expect(state).toEqual([2_500n, 2_500n])
    await send(relayer, 'settle', [channel.receiver, usdc])
    expect(await balanceOf(channel.receiver)).toBe(2_500n)
  })

  test('a refund needs the current nonce and the authorizer’s signature; it is not replayed', async () => {
    const channel = await newChannel(10_000n)
    await depositErc3009(channel, 10_000n)
    const row = claimRow(channel, 3_000n, await voucher(channel, 3_000n), 3_000n)
    await send(relayer, 'claimWithSignature', [[row], await signClaims([row])])

    const stranger = privateKeyToAccount(generatePrivateKey())
    expect(
      await revertOf(
        send(relayer, 'refundWithSignature', [
          channel.config,
          2_000n,
          0n,
          await signRefund(channel, 0n, 2_000n, stranger),
        ]),
      ),
    ).toBe('InvalidAuthorizerSignature')
    const first = await signRefund(channel, 0n, 2_000n)
    await send(relayer, 'refundWithSignature', [channel.config, 2_000n, 0n, first])
    expect(await balanceOf(channel.payer.address)).toBe(2_000n)
    expect(await revertOf(send(relayer, 'refundWithSignature', [channel.config, 2_000n, 0n, first]))).toBe(
      'InvalidRefundNonce',
    )
    // The next nonce refunds what is left unclaimed, no more.
    await send(relayer, 'refundWithSignature', [channel.config, 50_000n, 1n, await signRefund(channel, 1n, 50_000n)])
    expect(await balanceOf(channel.payer.address)).toBe(7_000n)
    expect(await channelOf(channel.id)).toEqual([3_000n, 3_000n])
    expect(
      await chain.client.readContract({
        address: BATCH_SETTLEMENT_ADDRESS,
        abi,
        functionName: 'refundNonce',
        args: [channel.id],
      }),
    ).toBe(2n)
  })

  test('a withdrawal waits for the channel’s delay by the chain’s time, and takes only what is unclaimed', async () => {
    const channel = await newChannel(10_000n)
    await depositErc3009(channel, 10_000n)
    expect(await revertOf(send(relayer, 'initiateWithdraw', [channel.config, 1_000n]))).toBe('NotPayerOrAuthorizer')
    expect(await revertOf(send(channel.payer, 'initiateWithdraw', [channel.config, 20_000n]))).toBe(
      'WithdrawAboveAvailable',
    )
    await send(channel.payer, 'initiateWithdraw', [channel.config, 10_000n])
    const [, initiatedAt] = await chain.client.readContract({
      address: BATCH_SETTLEMENT_ADDRESS,
      abi,
      functionName: 'pendingWithdrawals',
      args: [channel.id],
    })
    expect(initiatedAt).toBeGreaterThan(0)
    expect(await revertOf(send(channel.payer, 'finalizeWithdraw', [channel.config]))).toBe('WithdrawDelayNotElapsed')

    // Meanwhile the receiver claims what it was paid.
    const row = claimRow(channel, 4_000n, await voucher(channel, 4_000n), 4_000n)
    await send(relayer, 'claimWithSignature', [[row], await signClaims([row])])

    await chain.testClient.increaseTime({ seconds: 900 })
    await chain.testClient.mine({ blocks: 1 })
    await send(channel.payer, 'finalizeWithdraw', [channel.config])
    expect(await balanceOf(channel.payer.address)).toBe(6_000n)
    expect(await channelOf(channel.id)).toEqual([4_000n, 4_000n])
    expect(await revertOf(send(channel.payer, 'finalizeWithdraw', [channel.config]))).toBe('NoPendingWithdraw')
  })
})
