/**
 * svc's commerce-payments contracts (chain/contracts/AuthCaptureEscrow.sol, AuthCaptureCollectors.sol) at the v1.1
 * addresses on a real Anvil, paid with payloads signed by `@x402/evm`'s own `AuthCaptureEvmScheme` client (EIP-3009
 * and Permit2, unbound and salt-bound) and driven from the operator's account: the escrow's rules (expiry ordering,
 * operator gating, fee bounds, full authorize, partial capture, capture deadline, void, refund window and bound,
 * reclaim by the payer after the capture deadline, replay) and where the money is at each step; and smart-wallet payers
 * (ERC-1271, and ERC-6492 for a wallet the collector deploys through Multicall3). The same contracts at the
 * specification's v1.1 addresses too (which the official client refuses: paid there with a hand-built EIP-3009
 * payload), each set's collectors refusing the other set's escrow.
 * One Anvil for the file; every case uses fresh accounts and salts, and the cases that move the chain's clock run last,
 * each inside a snapshot it reverts.
 */
import { randomBytes } from 'node:crypto'
import { createRequire } from 'node:module'
import type { PaymentRequirements } from '@x402/core/types'
import {
  AUTH_CAPTURE_ESCROW_ADDRESS,
  AUTH_CAPTURE_ESCROW_V1_0_ADDRESS,
  EIP3009_TOKEN_COLLECTOR_ADDRESS,
  EIP3009_TOKEN_COLLECTOR_V1_0_ADDRESS,
  OPERATOR_REFUND_COLLECTOR_ADDRESS,
  PERMIT2_ADDRESS,
  PERMIT2_TOKEN_COLLECTOR_ADDRESS,
} from '@x402/evm'
import { AuthCaptureEvmScheme } from '@x402/evm/auth-capture/client'
import {
  type BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  encodeAbiParameters,
  encodeFunctionData,
  getContractAddress,
  http,
  keccak256,
  maxUint256,
  parseEther,
  parseEventLogs,
  toBytes,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
  type PrivateKeyAccount,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { authCaptureAddresses, authCaptureDeployments } from '../../../chain/auth-capture/index.js'
import { authCaptureEscrowAbi as abi } from '../../../chain/contracts/auth-capture-escrow.generated.js'
import { authCaptureTokenStoreAbi } from '../../../chain/contracts/auth-capture-token-store.generated.js'
import { erc3009PaymentCollectorAbi } from '../../../chain/contracts/erc3009-payment-collector.generated.js'
import { operatorRefundCollectorAbi } from '../../../chain/contracts/operator-refund-collector.generated.js'
import { permit2Abi } from '../../../chain/contracts/permit2.generated.js'
import { permit2PaymentCollectorAbi } from '../../../chain/contracts/permit2-payment-collector.generated.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'

const escrow = AUTH_CAPTURE_ESCROW_ADDRESS as Address
const erc3009Collector = EIP3009_TOKEN_COLLECTOR_ADDRESS as Address
const permit2Collector = PERMIT2_TOKEN_COLLECTOR_ADDRESS as Address
const refundCollector = OPERATOR_REFUND_COLLECTOR_ADDRESS as Address
/** The v1.1 addresses of the scheme's EVM binding (x402's scheme_auth_capture_evm.md), which `@x402/evm` does not know. */
const spec = {
  escrow: '0x13AC3b34322D12FE27D5e192D0c2b2266d4F29CB',
  erc3009Collector: '0xEA902B37036bcb4944577ec2101ABdEDF56EbD28',
  permit2Collector: '0x1aacb38b16a1a8709e80746825E53A0C9Cae9b70',
  operatorRefundCollector: '0x6a1ADdEEb4bD9c5811a613e20c172b6CE61A4aaB',
} as const satisfies Record<string, Address>
const paymentInfoTypehash = keccak256(
  toBytes(
    'PaymentInfo(address operator,address payer,address receiver,address token,uint120 maxAmount,uint48 preApprovalExpiry,uint48 authorizationExpiry,uint48 refundExpiry,uint16 minFeeBps,uint16 maxFeeBps,address feeReceiver,uint256 salt)',
  ),
)
const saltBindingTypehash = keccak256(
  toBytes('x402AuthCaptureSaltBinding(address receiverAuthorizer,address policy,uint256 saltNonce)'),
)
/** Every revert a call may surface: the escrow's, a collector's, Permit2's and the token's (Error(string)). */
const errorsAbi = [...abi, ...erc3009PaymentCollectorAbi, ...permit2Abi, ...authCaptureTokenStoreAbi].filter(
  (item) => item.type === 'error',
)

type PaymentInfo = {
  operator: Address
  payer: Address
  receiver: Address
  token: Address
  maxAmount: bigint
  preApprovalExpiry: number
  authorizationExpiry: number
  refundExpiry: number
  minFeeBps: number
  maxFeeBps: number
  feeReceiver: Address
  salt: bigint
}

let chain: SandboxChain
let usdc: Address
/** The payments' operator (`captureAuthorizer`): the only account the escrow lets authorize, capture, void, refund. */
let operator: PrivateKeyAccount

beforeAll(async () => {
  chain = await startChain()
  usdc = chain.usdc.address
  operator = await newAccount()
})

afterAll(async () => {
  await chain?.stop()
})

const random32 = () => toHex(randomBytes(32))
const randomAddress = () => privateKeyToAccount(generatePrivateKey()).address
/** The chain's clock (the escrow's rules are judged by the block's timestamp). */
const chainNow = async () => Number((await chain.client.getBlock()).timestamp)

async function newAccount(usdcAmount = 0n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await chain.testClient.setBalance({ address: account.address, value: parseEther('10') })
  if (usdcAmount > 0n) await chain.usdcFunder.fund(account.address, usdcAmount)
  return account
}

const balanceOf = (address: Address) =>
  chain.client.readContract({ address: usdc, abi: sandboxUsdcAbi, functionName: 'balanceOf', args: [address] })
const stateOf = async (info: PaymentInfo, at: Address = escrow) => {
  const hash = await chain.client.readContract({ address: at, abi, functionName: 'getHash', args: [info] })
  const [collected, capturable, refundable] = await chain.client.readContract({
    address: at,
    abi,
    functionName: 'paymentState',
    args: [hash],
  })
  return { collected, capturable, refundable }
}
const tokenStoreOf = (who: Address) =>
  chain.client.readContract({ address: escrow, abi, functionName: 'getTokenStore', args: [who] })

/** Calls a contract from `from` (simulated first, so a revert throws with its decoded error) and answers the receipt. */
async function send(
  from: PrivateKeyAccount,
  functionName: string,
  args: readonly unknown[],
  address: Address = escrow,
  contractAbi: readonly unknown[] = address === escrow || address === spec.escrow ? abi : sandboxUsdcAbi,
) {
  const params = { address, abi: [...contractAbi, ...errorsAbi], functionName, args, account: from } as never
  const { request } = await chain.client.simulateContract(params)
  const wallet = createWalletClient({ account: from, chain: chain.chain, transport: http(chain.rpcUrl) })
  const hash = await wallet.writeContract(request)
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return receipt
}

/** The custom error (or revert string) a call reverts with. */
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

/** The payer-agnostic hash (x402's `signatureNonce`), as the binding defines it, computed here without the escrow. */
function signatureNonceOf(info: PaymentInfo, at: Address = escrow): Hex {
  const structHash = keccak256(
    encodeAbiParameters(
      [
        { type: 'bytes32' },
        { type: 'address' },
        { type: 'address' },
        { type: 'address' },
        { type: 'address' },
        { type: 'uint120' },
        { type: 'uint48' },
        { type: 'uint48' },
        { type: 'uint48' },
        { type: 'uint16' },
        { type: 'uint16' },
        { type: 'address' },
        { type: 'uint256' },
      ],
      [
        paymentInfoTypehash,
        info.operator,
        zeroAddress,
        info.receiver,
        info.token,
        info.maxAmount,
        info.preApprovalExpiry,
        info.authorizationExpiry,
        info.refundExpiry,
        info.minFeeBps,
        info.maxFeeBps,
        info.feeReceiver,
        info.salt,
      ],
    ),
  )
  return keccak256(
    encodeAbiParameters(
      [{ type: 'uint256' }, { type: 'address' }, { type: 'bytes32' }],
      [BigInt(chain.chainId), at, structHash],
    ),
  )
}

/** A payment of `payer` to a new receiver, operated by the test's operator, with deadlines from the chain's clock. */
async function paymentOf(payer: Address, overrides: Partial<PaymentInfo> = {}): Promise<PaymentInfo> {
  const now = await chainNow()
  return {
    operator: operator.address,
    payer,
    receiver: randomAddress(),
    token: usdc,
    maxAmount: 1_000n,
    preApprovalExpiry: now + 600,
    authorizationExpiry: now + 3_600,
    refundExpiry: now + 7_200,
    minFeeBps: 0,
    maxFeeBps: 0,
    feeReceiver: zeroAddress,
    salt: BigInt(random32()),
    ...overrides,
  }
}

/**
 * The payer's ERC-3009 `ReceiveWithAuthorization` for the payment, as the ERC-3009 collector redeems it: payee the
 * collector, nonce the payment's payer-agnostic hash at its escrow (by default `@x402/evm`'s set).
 */
function signErc3009(
  payer: PrivateKeyAccount,
  info: PaymentInfo,
  at: { escrow: Address; erc3009Collector: Address } = { escrow, erc3009Collector },
) {
  return payer.signTypedData({
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
      from: payer.address,
      to: at.erc3009Collector,
      value: info.maxAmount,
      validAfter: 0n,
      validBefore: BigInt(info.preApprovalExpiry),
      nonce: signatureNonceOf(info, at.escrow),
    },
  })
}

/** A payer holding `funds` whose payment of `maxAmount` (overrides aside) is authorized in full through ERC-3009. */
async function authorized(overrides: Partial<PaymentInfo> = {}, funds = 10_000n) {
  const payer = await newAccount(funds)
  const info = await paymentOf(payer.address, overrides)
  await send(operator, 'authorize', [info, info.maxAmount, erc3009Collector, await signErc3009(payer, info)])
  return { payer, info }
}

// --- the official client --------------------------------------------------------------------------------------------

/** Requirements for an `auth-capture` payment to `payTo`, operated by the test's operator. */
async function requirementsFor(payTo: Address, extra: Record<string, unknown> = {}): Promise<PaymentRequirements> {
  const now = Math.floor(Date.now() / 1000)
  return {
    scheme: 'auth-capture',
    network: chain.network,
    amount: '2500',
    asset: usdc,
    payTo,
    maxTimeoutSeconds: 300,
    extra: {
      name: chain.usdc.name,
      version: chain.usdc.version,
      captureAuthorizer: operator.address,
      captureDeadline: now + 3_600,
      refundDeadline: now + 7_200,
      minFeeBps: 0,
      maxFeeBps: 0,
      feeRecipient: zeroAddress,
      ...extra,
    },
  }
}

type ClientPayload = {
  authorization?: { from: Address; to: Address; value: string; validBefore: string; nonce: Hex }
  permit2Authorization?: {
    from: Address
    spender: Address
    permitted: { amount: string }
    nonce: string
    deadline: string
  }
  signature: Hex
  salt: Hex
  saltNonce?: Hex
}

/** The on-chain `PaymentInfo` a facilitator rebuilds from the requirements and the client's payload. */
function paymentInfoFrom(requirements: PaymentRequirements, payload: ClientPayload): PaymentInfo {
  const extra = requirements.extra as {
    captureAuthorizer: Address
    captureDeadline: number
    refundDeadline: number
    minFeeBps: number
    maxFeeBps: number
    feeRecipient: Address
  }
  const signed = payload.authorization ?? payload.permit2Authorization!
  return {
    operator: extra.captureAuthorizer,
    payer: signed.from,
    receiver: requirements.payTo as Address,
    token: requirements.asset as Address,
    maxAmount: BigInt(requirements.amount),
    preApprovalExpiry: Number(payload.authorization?.validBefore ?? payload.permit2Authorization!.deadline),
    authorizationExpiry: extra.captureDeadline,
    refundExpiry: extra.refundDeadline,
    minFeeBps: extra.minFeeBps,
    maxFeeBps: extra.maxFeeBps,
    feeReceiver: extra.feeRecipient,
    salt: BigInt(payload.salt),
  }
}

describe('installed at the v1.1 addresses', () => {
  test('the escrow, its token store implementation and the three collectors have code, at both sets; v1.0 has none', async () => {
    for (const set of Object.values(authCaptureDeployments))
      for (const address of Object.values(set))
        expect((await chain.client.getCode({ address }))?.length, address).toBeGreaterThan(2)
    for (const address of [AUTH_CAPTURE_ESCROW_V1_0_ADDRESS, EIP3009_TOKEN_COLLECTOR_V1_0_ADDRESS] as Address[])
      expect(await chain.client.getCode({ address })).toBeUndefined()
  })

  test('the addresses the contracts name are @x402/evm’s, and the store implementation is the escrow’s first CREATE', async () => {
    const read = (address: Address, functionName: string, contractAbi: readonly unknown[] = abi) =>
      chain.client.readContract({ address, abi: contractAbi as never, functionName, args: [] } as never)
    expect(authCaptureAddresses).toMatchObject({
      escrow,
      erc3009Collector,
      permit2Collector,
      operatorRefundCollector: refundCollector,
    })
    const implementation = getContractAddress({ from: escrow, nonce: 1n })
    expect(await read(escrow, 'tokenStoreImplementation')).toBe(implementation)
    expect(authCaptureAddresses.tokenStoreImplementation).toBe(implementation)
    expect(await read(implementation, 'authCaptureEscrow', authCaptureTokenStoreAbi)).toBe(escrow)
    for (const collector of [erc3009Collector, permit2Collector, refundCollector])
      expect(await read(collector, 'authCaptureEscrow', erc3009PaymentCollectorAbi)).toBe(escrow)
    expect(await read(permit2Collector, 'permit2', permit2PaymentCollectorAbi)).toBe(PERMIT2_ADDRESS)
    expect(await read(erc3009Collector, 'collectorType', erc3009PaymentCollectorAbi)).toBe(0)
    expect(await read(permit2Collector, 'collectorType', permit2PaymentCollectorAbi)).toBe(0)
    expect(await read(refundCollector, 'collectorType', operatorRefundCollectorAbi)).toBe(1)
  })

  test('the specification’s set: its own store implementation (its escrow’s first CREATE), its collectors bound to its escrow', async () => {
    const read = (address: Address, functionName: string, contractAbi: readonly unknown[] = abi) =>
      chain.client.readContract({ address, abi: contractAbi as never, functionName, args: [] } as never)
    expect(authCaptureDeployments.package).toEqual(authCaptureAddresses)
    expect(authCaptureDeployments.spec).toMatchObject(spec)
    const implementation = getContractAddress({ from: spec.escrow, nonce: 1n })
    expect(authCaptureDeployments.spec.tokenStoreImplementation).toBe(implementation)
    expect(await read(spec.escrow, 'tokenStoreImplementation')).toBe(implementation)
    expect(await read(implementation, 'authCaptureEscrow', authCaptureTokenStoreAbi)).toBe(spec.escrow)
    for (const collector of [spec.erc3009Collector, spec.permit2Collector, spec.operatorRefundCollector])
      expect(await read(collector, 'authCaptureEscrow', erc3009PaymentCollectorAbi)).toBe(spec.escrow)
    expect(await read(spec.permit2Collector, 'permit2', permit2PaymentCollectorAbi)).toBe(PERMIT2_ADDRESS)
    expect(await read(spec.operatorRefundCollector, 'collectorType', operatorRefundCollectorAbi)).toBe(1)
  })

  test('getHash is the binding’s paymentInfoHash; the payer-agnostic one is the signature nonce', async () => {
    const info = await paymentOf(randomAddress())
    const hash = await chain.client.readContract({ address: escrow, abi, functionName: 'getHash', args: [info] })
    expect(await chain.client.readContract({ address: escrow, abi, functionName: 'PAYMENT_INFO_TYPEHASH' })).toBe(
      paymentInfoTypehash,
    )
    const agnostic = await chain.client.readContract({
      address: escrow,
      abi,
      functionName: 'getHash',
      args: [{ ...info, payer: zeroAddress }],
    })
    expect(agnostic).toBe(signatureNonceOf(info))
    expect(hash).not.toBe(agnostic)
  })
})

describe('authorize with the official client’s payload', () => {
  test('EIP-3009, unbound: the full amount moves from the payer into the operator’s token store', async () => {
    const payer = await newAccount(10_000n)
    const requirements = await requirementsFor(randomAddress())
    const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, requirements)
    const wire = payload as unknown as ClientPayload
    expect(wire.authorization?.to).toBe(erc3009Collector)
    expect(wire.saltNonce).toBeUndefined()
    const info = paymentInfoFrom(requirements, wire)
    expect(wire.authorization?.nonce).toBe(signatureNonceOf(info))

    const store = await tokenStoreOf(operator.address)
    const storeBefore = await balanceOf(store)
    const receipt = await send(operator, 'authorize', [info, info.maxAmount, erc3009Collector, wire.signature])
    expect(await balanceOf(payer.address)).toBe(10_000n - 2_500n)
    expect(await balanceOf(store)).toBe(storeBefore + 2_500n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 2_500n, refundable: 0n })
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'PaymentAuthorized' })
    expect(event?.args).toMatchObject({ amount: 2_500n, tokenCollector: erc3009Collector })
    expect(event?.args.paymentInfo).toEqual(info)
  })

  test('EIP-3009 with a receiver authorizer: the salt is the binding’s commitment and the payment authorizes', async () => {
    const payer = await newAccount(10_000n)
    const receiverAuthorizer = randomAddress()
    const requirements = await requirementsFor(randomAddress(), {
      receiverAuthorizer,
      minFeeBps: 100,
      maxFeeBps: 100,
      feeRecipient: randomAddress(),
    })
    const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, requirements)
    const wire = payload as unknown as ClientPayload
    expect(wire.saltNonce).toMatch(/^0x[0-9a-f]{64}$/)
    expect(wire.salt).toBe(
      keccak256(
        encodeAbiParameters(
          [{ type: 'bytes32' }, { type: 'address' }, { type: 'address' }, { type: 'uint256' }],
          [saltBindingTypehash, receiverAuthorizer, zeroAddress, BigInt(wire.saltNonce!)],
        ),
      ),
    )
    const info = paymentInfoFrom(requirements, wire)
    await send(operator, 'authorize', [info, info.maxAmount, erc3009Collector, wire.signature])
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 2_500n, refundable: 0n })

    // The salt a payload names is the one the payer signed: the raw nonce in its place does not reopen the signature.
    const other = await newAccount(10_000n)
    const second = (await new AuthCaptureEvmScheme(other).createPaymentPayload(2, requirements))
      .payload as never as ClientPayload
    const unbound = { ...paymentInfoFrom(requirements, second), salt: BigInt(second.saltNonce!) }
    expect(
      await revertOf(send(operator, 'authorize', [unbound, unbound.maxAmount, erc3009Collector, second.signature])),
    ).toBe('FiatTokenV2: invalid signature')
  })

  test('Permit2: the payer’s PermitTransferFrom (nonce = signatureNonce) moves the full amount to the token store', async () => {
    const payer = await newAccount(10_000n)
    await send(payer, 'approve', [PERMIT2_ADDRESS, maxUint256], usdc)
    const requirements = await requirementsFor(randomAddress(), {
      assetTransferMethod: 'permit2',
      receiverAuthorizer: randomAddress(),
    })
    const { payload } = await new AuthCaptureEvmScheme(payer).createPaymentPayload(2, requirements)
    const wire = payload as unknown as ClientPayload
    expect(wire.permit2Authorization?.spender).toBe(permit2Collector)
    const info = paymentInfoFrom(requirements, wire)
    expect(BigInt(wire.permit2Authorization!.nonce)).toBe(BigInt(signatureNonceOf(info)))

    const store = await tokenStoreOf(operator.address)
    const storeBefore = await balanceOf(store)
    await send(operator, 'authorize', [info, info.maxAmount, permit2Collector, wire.signature])
    expect(await balanceOf(payer.address)).toBe(10_000n - 2_500n)
    expect(await balanceOf(store)).toBe(storeBefore + 2_500n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 2_500n, refundable: 0n })
    // Replayed: the escrow refuses the payment it has, and Permit2 the nonce it spent.
    expect(await revertOf(send(operator, 'authorize', [info, info.maxAmount, permit2Collector, wire.signature]))).toBe(
      'PaymentAlreadyCollected',
    )
  })
})

describe('the escrow’s rules', () => {
  test('expiries must be ordered preApproval ≤ authorization ≤ refund; equal ones are allowed', async () => {
    const payer = await newAccount(10_000n)
    const now = await chainNow()
    const late = await paymentOf(payer.address, { preApprovalExpiry: now + 700, authorizationExpiry: now + 600 })
    expect(
      await revertOf(send(operator, 'authorize', [late, 1_000n, erc3009Collector, await signErc3009(payer, late)])),
    ).toBe('InvalidExpiries')
    const early = await paymentOf(payer.address, { authorizationExpiry: now + 3_600, refundExpiry: now + 3_599 })
    expect(
      await revertOf(send(operator, 'authorize', [early, 1_000n, erc3009Collector, await signErc3009(payer, early)])),
    ).toBe('InvalidExpiries')
    const past = await paymentOf(payer.address, { preApprovalExpiry: now - 1 })
    expect(
      await revertOf(send(operator, 'authorize', [past, 1_000n, erc3009Collector, await signErc3009(payer, past)])),
    ).toBe('AfterPreApprovalExpiry')
    const equal = await paymentOf(payer.address, {
      preApprovalExpiry: now + 600,
      authorizationExpiry: now + 600,
      refundExpiry: now + 600,
    })
    await send(operator, 'authorize', [equal, 1_000n, erc3009Collector, await signErc3009(payer, equal)])
    expect(await stateOf(equal)).toEqual({ collected: true, capturable: 1_000n, refundable: 0n })
  })

  test('only paymentInfo.operator may authorize, charge, capture, void and refund; only the payer reclaims', async () => {
    const { payer, info } = await authorized()
    const stranger = await newAccount()
    const signature = await signErc3009(payer, { ...info, salt: 1n })
    for (const [name, args] of [
      ['authorize', [{ ...info, salt: 1n }, 1_000n, erc3009Collector, signature]],
      ['charge', [{ ...info, salt: 1n }, 1_000n, erc3009Collector, signature, 0n, zeroAddress]],
      ['capture', [info, 100n, 0n, zeroAddress]],
      ['void', [info]],
      ['refund', [info, 1n, refundCollector, '0x']],
    ] as const) {
      expect(await revertOf(send(stranger, name, args)), name).toBe('InvalidSender')
      expect(await revertOf(send(payer, name, args)), name).toBe('InvalidSender')
    }
    expect(await revertOf(send(operator, 'reclaim', [info]))).toBe('InvalidSender')
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 1_000n, refundable: 0n })
  })

  test('fee bounds: maxFeeBps ≤ 10000 and min ≤ max at authorize; the absolute fee within amount × bps / 10000', async () => {
    const payer = await newAccount(10_000n)
    const overflow = await paymentOf(payer.address, { maxFeeBps: 10_001 })
    expect(
      await revertOf(
        send(operator, 'authorize', [overflow, 1_000n, erc3009Collector, await signErc3009(payer, overflow)]),
      ),
    ).toBe('FeeBpsOverflow')
    const inverted = await paymentOf(payer.address, { minFeeBps: 300, maxFeeBps: 200 })
    expect(
      await revertOf(
        send(operator, 'authorize', [inverted, 1_000n, erc3009Collector, await signErc3009(payer, inverted)]),
      ),
    ).toBe('InvalidFeeBpsRange')

    // 2% to 5% of each capture, to any fee receiver the operator names (none was signed).
    const { info } = await authorized({ minFeeBps: 200, maxFeeBps: 500 })
    const feeTo = randomAddress()
    expect(await revertOf(send(operator, 'capture', [info, 600n, 11n, feeTo]))).toBe('FeeAmountOutOfRange')
    expect(await revertOf(send(operator, 'capture', [info, 600n, 31n, feeTo]))).toBe('FeeAmountOutOfRange')
    expect(await revertOf(send(operator, 'capture', [info, 600n, 12n, zeroAddress]))).toBe('ZeroFeeReceiver')
    const receipt = await send(operator, 'capture', [info, 600n, 30n, feeTo])
    expect(await balanceOf(feeTo)).toBe(30n)
    expect(await balanceOf(info.receiver)).toBe(570n)
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'PaymentCaptured' })
    expect(event?.args).toMatchObject({ amount: 600n, feeAmount: 30n, feeReceiver: feeTo })

    // A signed fee receiver is the only one, even for a zero fee; bounds are per capture (integer division).
    const fixed = randomAddress()
    const { info: signed } = await authorized({ minFeeBps: 100, maxFeeBps: 100, feeReceiver: fixed })
    expect(await revertOf(send(operator, 'capture', [signed, 500n, 5n, feeTo]))).toBe('InvalidFeeReceiver')
    expect(await revertOf(send(operator, 'capture', [signed, 50n, 0n, zeroAddress]))).toBe('InvalidFeeReceiver')
    await send(operator, 'capture', [signed, 50n, 0n, fixed])
    await send(operator, 'capture', [signed, 500n, 5n, fixed])
    expect(await balanceOf(fixed)).toBe(5n)
    expect(await balanceOf(signed.receiver)).toBe(545n)
  })

  test('authorize takes the full amount it names, never more than maxAmount nor zero', async () => {
    const payer = await newAccount(10_000n)
    const info = await paymentOf(payer.address)
    const signature = await signErc3009(payer, info)
    expect(await revertOf(send(operator, 'authorize', [info, 1_001n, erc3009Collector, signature]))).toBe(
      'ExceedsMaxAmount',
    )
    expect(await revertOf(send(operator, 'authorize', [info, 0n, erc3009Collector, signature]))).toBe('ZeroAmount')
    // The wrong kind of collector for the operation.
    expect(await revertOf(send(operator, 'authorize', [info, 1_000n, refundCollector, signature]))).toBe(
      'InvalidCollectorForOperation',
    )
    await send(operator, 'authorize', [info, 1_000n, erc3009Collector, signature])
    expect(await balanceOf(payer.address)).toBe(9_000n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 1_000n, refundable: 0n })
  })

  test('partial captures add up to what was authorized and no further', async () => {
    const { info } = await authorized()
    await send(operator, 'capture', [info, 400n, 0n, zeroAddress])
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 600n, refundable: 400n })
    expect(await balanceOf(info.receiver)).toBe(400n)
    expect(await revertOf(send(operator, 'capture', [info, 601n, 0n, zeroAddress]))).toBe('InsufficientAuthorization')
    await send(operator, 'capture', [info, 600n, 0n, zeroAddress])
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 0n, refundable: 1_000n })
    expect(await balanceOf(info.receiver)).toBe(1_000n)
    expect(await revertOf(send(operator, 'capture', [info, 1n, 0n, zeroAddress]))).toBe('InsufficientAuthorization')
  })

  test('void returns what is still held to the payer; a second void is refused, and so is a capture after it', async () => {
    const { payer, info } = await authorized()
    await send(operator, 'capture', [info, 300n, 0n, zeroAddress])
    const receipt = await send(operator, 'void', [info])
    expect(await balanceOf(payer.address)).toBe(10_000n - 300n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 0n, refundable: 300n })
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'PaymentVoided' })
    expect(event?.args.amount).toBe(700n)
    expect(await revertOf(send(operator, 'void', [info]))).toBe('ZeroAuthorization')
    expect(await revertOf(send(operator, 'capture', [info, 1n, 0n, zeroAddress]))).toBe('InsufficientAuthorization')
  })

  test('refund through the operator refund collector, within what was captured', async () => {
    const { payer, info } = await authorized()
    await send(operator, 'capture', [info, 600n, 0n, zeroAddress])
    expect(await revertOf(send(operator, 'refund', [info, 601n, refundCollector, '0x']))).toBe('RefundExceedsCapture')
    // The refund's tokens come from the operator, which approves the collector.
    await chain.usdcFunder.fund(operator.address, 1_000n)
    await send(operator, 'approve', [refundCollector, maxUint256], usdc)
    const operatorBefore = await balanceOf(operator.address)
    expect(await revertOf(send(operator, 'refund', [info, 100n, erc3009Collector, '0x']))).toBe(
      'InvalidCollectorForOperation',
    )
    await send(operator, 'refund', [info, 250n, refundCollector, '0x'])
    expect(await balanceOf(operator.address)).toBe(operatorBefore - 250n)
    expect(await balanceOf(payer.address)).toBe(10_000n - 1_000n + 250n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 400n, refundable: 350n })
    expect(await revertOf(send(operator, 'refund', [info, 351n, refundCollector, '0x']))).toBe('RefundExceedsCapture')
    await send(operator, 'refund', [info, 350n, refundCollector, '0x'])
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 400n, refundable: 0n })
  })

  test('charge: collect and pay out at once, taking less than the maximum (the rest stays with the payer)', async () => {
    const payer = await newAccount(10_000n)
    const feeTo = randomAddress()
    const info = await paymentOf(payer.address, { minFeeBps: 100, maxFeeBps: 100, feeReceiver: feeTo })
    const signature = await signErc3009(payer, info)
    expect(await revertOf(send(operator, 'charge', [info, 750n, erc3009Collector, signature, 8n, feeTo]))).toBe(
      'FeeAmountOutOfRange',
    )
    const receipt = await send(operator, 'charge', [info, 750n, erc3009Collector, signature, 7n, feeTo])
    expect(await balanceOf(payer.address)).toBe(10_000n - 750n)
    expect(await balanceOf(info.receiver)).toBe(743n)
    expect(await balanceOf(feeTo)).toBe(7n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 0n, refundable: 750n })
    const [event] = parseEventLogs({ abi, logs: receipt.logs, eventName: 'PaymentCharged' })
    expect(event?.args).toMatchObject({ amount: 750n, feeAmount: 7n, feeReceiver: feeTo })
    expect(await revertOf(send(operator, 'capture', [info, 1n, 0n, feeTo]))).toBe('InsufficientAuthorization')
  })

  test('replay: a payment is collected once, and a signature funds only the payment it names', async () => {
    const { payer, info } = await authorized()
    const signature = await signErc3009(payer, info)
    expect(await revertOf(send(operator, 'authorize', [info, 1_000n, erc3009Collector, signature]))).toBe(
      'PaymentAlreadyCollected',
    )
    expect(await revertOf(send(operator, 'charge', [info, 1_000n, erc3009Collector, signature, 0n, zeroAddress]))).toBe(
      'PaymentAlreadyCollected',
    )
    // The same signature under another payment (another receiver): its nonce is not the one signed.
    const elsewhere = { ...info, receiver: randomAddress() }
    expect(await revertOf(send(operator, 'authorize', [elsewhere, 1_000n, erc3009Collector, signature]))).toBe(
      'FiatTokenV2: invalid signature',
    )
    expect(await balanceOf(payer.address)).toBe(9_000n)
  })

  test('the token store: created on its first payout, the operator’s funds move only through the escrow', async () => {
    const owner = await newAccount()
    const store = await tokenStoreOf(owner.address)
    expect(await chain.client.getCode({ address: store })).toBeUndefined()
    const payer = await newAccount(10_000n)
    const info = await paymentOf(payer.address, { operator: owner.address })
    await send(owner, 'authorize', [info, 1_000n, erc3009Collector, await signErc3009(payer, info)])
    expect(await balanceOf(store)).toBe(1_000n)
    const receipt = await send(owner, 'capture', [info, 100n, 0n, zeroAddress])
    const created = parseEventLogs({ abi, logs: receipt.logs, eventName: 'TokenStoreCreated' })
    expect(created.map((e) => e.args)).toEqual([{ operator: owner.address, tokenStore: store }])
    expect(await revertOf(send(owner, 'sendTokens', [usdc, owner.address, 1n], store, authCaptureTokenStoreAbi))).toBe(
      'OnlyAuthCaptureEscrow',
    )
    const again = await send(owner, 'capture', [info, 100n, 0n, zeroAddress])
    expect(parseEventLogs({ abi, logs: again.logs, eventName: 'TokenStoreCreated' })).toEqual([])
    expect(await balanceOf(store)).toBe(800n)
  })
})

describe('at the specification’s addresses', () => {
  test('a hand-built EIP-3009 payload: authorize, partial capture, void (the official client refuses this escrow)', async () => {
    const payer = await newAccount(10_000n)
    await expect(
      new AuthCaptureEvmScheme(payer).createPaymentPayload(
        2,
        await requirementsFor(randomAddress(), { authCaptureEscrow: spec.escrow }),
      ),
    ).rejects.toThrow('Invalid authCaptureEscrow')
    const info = await paymentOf(payer.address)
    const signature = await signErc3009(payer, info, spec)
    const store = await chain.client.readContract({
      address: spec.escrow,
      abi,
      functionName: 'getTokenStore',
      args: [operator.address],
    })
    expect(store).not.toBe(await tokenStoreOf(operator.address))
    const storeBefore = await balanceOf(store)

    await send(operator, 'authorize', [info, 1_000n, spec.erc3009Collector, signature], spec.escrow)
    expect(await balanceOf(payer.address)).toBe(9_000n)
    expect(await balanceOf(store)).toBe(storeBefore + 1_000n)
    expect(await stateOf(info, spec.escrow)).toEqual({ collected: true, capturable: 1_000n, refundable: 0n })
    // Another escrow, another payment: the package's escrow has no record of it.
    expect(await stateOf(info)).toEqual({ collected: false, capturable: 0n, refundable: 0n })

    await send(operator, 'capture', [info, 300n, 0n, zeroAddress], spec.escrow)
    expect(await balanceOf(info.receiver)).toBe(300n)
    const receipt = await send(operator, 'void', [info], spec.escrow)
    expect(parseEventLogs({ abi, logs: receipt.logs, eventName: 'PaymentVoided' })[0]?.args.amount).toBe(700n)
    expect(await balanceOf(payer.address)).toBe(10_000n - 300n)
    expect(await balanceOf(store)).toBe(storeBefore)
    expect(await stateOf(info, spec.escrow)).toEqual({ collected: true, capturable: 0n, refundable: 300n })
  })

  test('a collector of one set refuses a payment of the other set’s escrow', async () => {
    const payer = await newAccount(10_000n)
    const info = await paymentOf(payer.address)
    // Signed for the collector it is handed to, so only the collector's own binding can refuse it.
    const forPackage = await signErc3009(payer, info, { escrow: spec.escrow, erc3009Collector })
    expect(await revertOf(send(operator, 'authorize', [info, 1_000n, erc3009Collector, forPackage], spec.escrow))).toBe(
      'OnlyAuthCaptureEscrow',
    )
    const forSpec = await signErc3009(payer, info, { escrow, erc3009Collector: spec.erc3009Collector })
    expect(await revertOf(send(operator, 'authorize', [info, 1_000n, spec.erc3009Collector, forSpec]))).toBe(
      'OnlyAuthCaptureEscrow',
    )
    // A refund through the other set's refund collector, approved by the operator: refused all the same.
    await chain.usdcFunder.fund(operator.address, 1_000n)
    await send(operator, 'approve', [spec.operatorRefundCollector, maxUint256], usdc)
    const { info: captured } = await authorized()
    await send(operator, 'capture', [captured, 500n, 0n, zeroAddress])
    expect(await revertOf(send(operator, 'refund', [captured, 100n, spec.operatorRefundCollector, '0x']))).toBe(
      'OnlyAuthCaptureEscrow',
    )
    expect(await balanceOf(payer.address)).toBe(10_000n)
    expect(await stateOf(info, spec.escrow)).toEqual({ collected: false, capturable: 0n, refundable: 0n })
  })
})

describe('smart-wallet payers', () => {
  /** A test wallet (ERC-1271: valid when its owner signed the digest) and the factory that deploys it with CREATE2. */
  const walletSource = `// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;
contract TestWallet {
    address public immutable owner;
    constructor(address owner_) { owner = owner_; }
    function isValidSignature(bytes32 hash, bytes calldata signature) external view returns (bytes4) {
        (bytes32 r, bytes32 s) = abi.decode(signature[:64], (bytes32, bytes32));
        return ecrecover(hash, uint8(signature[64]), r, s) == owner ? bytes4(0x1626ba7e) : bytes4(0xffffffff);
    }
}
contract TestWalletFactory {
    function deploy(address owner, bytes32 salt) external returns (address) {
        return address(new TestWallet{salt: salt}(owner));
    }
    function addressOf(address owner, bytes32 salt) external view returns (address) {
        bytes32 initCode = keccak256(abi.encodePacked(type(TestWallet).creationCode, abi.encode(owner)));
        return address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, initCode)))));
    }
}`
  const factoryAbi = [
    {
      type: 'function',
      name: 'deploy',
      stateMutability: 'nonpayable',
      inputs: [{ type: 'address' }, { type: 'bytes32' }],
      outputs: [{ type: 'address' }],
    },
    {
      type: 'function',
      name: 'addressOf',
      stateMutability: 'view',
      inputs: [{ type: 'address' }, { type: 'bytes32' }],
      outputs: [{ type: 'address' }],
    },
  ] as const
  const factory = '0x00000000000000000000000000000000000f6492' as Address
  const erc6492Magic = '6492649264926492649264926492649264926492649264926492649264926492'

  beforeAll(async () => {
    const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string }
    const output = JSON.parse(
      solc.compile(
        JSON.stringify({
          language: 'Solidity',
          sources: { 'TestWallet.sol': { content: walletSource } },
          settings: { evmVersion: 'cancun', outputSelection: { '*': { '*': ['evm.deployedBytecode.object'] } } },
        }),
      ),
    )
    const runtime = output.contracts['TestWallet.sol'].TestWalletFactory.evm.deployedBytecode.object as string
    await chain.testClient.setCode({ address: factory, bytecode: `0x${runtime}` })
  }, 60_000)

  test('a wallet not deployed yet pays with an ERC-6492 signature (deployed through Multicall3), then with ERC-1271', async () => {
    const owner = privateKeyToAccount(generatePrivateKey())
    const walletSalt = random32()
    const wallet = await chain.client.readContract({
      address: factory,
      abi: factoryAbi,
      functionName: 'addressOf',
      args: [owner.address, walletSalt],
    })
    await chain.usdcFunder.fund(wallet, 10_000n)
    // The official client signs as the wallet; the wallet's owner makes the signature.
    const signer = { address: wallet, signTypedData: (message: never) => owner.signTypedData(message) }
    const requirements = await requirementsFor(randomAddress())
    const first = (await new AuthCaptureEvmScheme(signer).createPaymentPayload(2, requirements))
      .payload as unknown as ClientPayload
    const deploy = encodeFunctionData({ abi: factoryAbi, functionName: 'deploy', args: [owner.address, walletSalt] })
    const wrapped = `${encodeAbiParameters(
      [{ type: 'address' }, { type: 'bytes' }, { type: 'bytes' }],
      [factory, deploy, first.signature],
    )}${erc6492Magic}` as Hex
    const info = paymentInfoFrom(requirements, first)
    // Unwrapped, the inner signature cannot be checked: there is no wallet to ask.
    expect(await revertOf(send(operator, 'authorize', [info, info.maxAmount, erc3009Collector, first.signature]))).toBe(
      'FiatTokenV2: invalid signature',
    )
    await send(operator, 'authorize', [info, info.maxAmount, erc3009Collector, wrapped])
    expect((await chain.client.getCode({ address: wallet }))?.length).toBeGreaterThan(2)
    expect(await balanceOf(wallet)).toBe(10_000n - 2_500n)
    expect(await stateOf(info)).toEqual({ collected: true, capturable: 2_500n, refundable: 0n })

    // Deployed now: a plain ERC-1271 signature, and an envelope whose preparation call fails (already deployed).
    const second = (await new AuthCaptureEvmScheme(signer).createPaymentPayload(2, requirements))
      .payload as unknown as ClientPayload
    const third = (await new AuthCaptureEvmScheme(signer).createPaymentPayload(2, requirements))
      .payload as unknown as ClientPayload
    const rewrapped = `${encodeAbiParameters(
      [{ type: 'address' }, { type: 'bytes' }, { type: 'bytes' }],
      [factory, deploy, third.signature],
    )}${erc6492Magic}` as Hex
    await send(operator, 'authorize', [
      paymentInfoFrom(requirements, second),
      2_500n,
      erc3009Collector,
      second.signature,
    ])
    await send(operator, 'authorize', [paymentInfoFrom(requirements, third), 2_500n, erc3009Collector, rewrapped])
    expect(await balanceOf(wallet)).toBe(10_000n - 7_500n)
    // A signature by anyone else is refused by the wallet.
    const stranger = privateKeyToAccount(generatePrivateKey())
    const forged = (
      await new AuthCaptureEvmScheme({
        address: wallet,
        signTypedData: (message: never) => stranger.signTypedData(message),
      }).createPaymentPayload(2, requirements)
    ).payload as unknown as ClientPayload
    expect(
      await revertOf(
        send(operator, 'authorize', [
          paymentInfoFrom(requirements, forged),
          2_500n,
          erc3009Collector,
          forged.signature,
        ]),
      ),
    ).toBe('FiatTokenV2: invalid signature')
  })
})

describe('deadlines, by the chain’s clock', () => {
  /**
   * Runs `body` on a chain whose latest block is at `timestamp` (the next transaction lands a little after it), then
   * puts the chain back, its clock with it.
   */
  async function at(timestamp: number, body: () => Promise<void>) {
    const id = await chain.testClient.snapshot()
    try {
      await chain.testClient.setNextBlockTimestamp({ timestamp: BigInt(timestamp) })
      await chain.testClient.mine({ blocks: 1 })
      await body()
    } finally {
      await chain.testClient.revert({ id })
      const latest = await chainNow()
      await chain.testClient.setNextBlockTimestamp({
        timestamp: BigInt(Math.max(latest + 1, Math.floor(Date.now() / 1000))),
      })
      await chain.testClient.mine({ blocks: 1 })
    }
  }

  test('no capture once the authorization expiry is reached; a void still returns the hold', async () => {
    const { info } = await authorized()
    await send(operator, 'capture', [info, 100n, 0n, zeroAddress])
    await at(info.authorizationExpiry, async () => {
      expect(await revertOf(send(operator, 'capture', [info, 100n, 0n, zeroAddress]))).toBe('AfterAuthorizationExpiry')
      await send(operator, 'void', [info])
      expect(await stateOf(info)).toEqual({ collected: true, capturable: 0n, refundable: 100n })
    })
  })

  test('reclaim: only the payer, only once the authorization expiry has passed, only once', async () => {
    const { payer, info } = await authorized()
    await send(operator, 'capture', [info, 250n, 0n, zeroAddress])
    expect(await revertOf(send(payer, 'reclaim', [info]))).toBe('BeforeAuthorizationExpiry')
    await at(info.authorizationExpiry, async () => {
      expect(await revertOf(send(operator, 'reclaim', [info]))).toBe('InvalidSender')
      const receipt = await send(payer, 'reclaim', [info])
      expect(parseEventLogs({ abi, logs: receipt.logs, eventName: 'PaymentReclaimed' })[0]?.args.amount).toBe(750n)
      expect(await balanceOf(payer.address)).toBe(10_000n - 250n)
      expect(await stateOf(info)).toEqual({ collected: true, capturable: 0n, refundable: 250n })
      expect(await revertOf(send(payer, 'reclaim', [info]))).toBe('ZeroAuthorization')
    })
  })

  test('refunds until the refund expiry, none once it is reached', async () => {
    const { info } = await authorized()
    await send(operator, 'capture', [info, 500n, 0n, zeroAddress])
    await chain.usdcFunder.fund(operator.address, 1_000n)
    await send(operator, 'approve', [refundCollector, maxUint256], usdc)
    await at(info.refundExpiry - 10, async () => {
      await send(operator, 'refund', [info, 100n, refundCollector, '0x'])
      expect(await stateOf(info)).toMatchObject({ refundable: 400n })
    })
    await at(info.refundExpiry, async () => {
      expect(await revertOf(send(operator, 'refund', [info, 100n, refundCollector, '0x']))).toBe('AfterRefundExpiry')
    })
  })
})
