/**
 * The sandbox USDC on a real Anvil: EIP-712 domain, EIP-3009 transfer/receive/cancel authorizations (both signature
 * overloads), EIP-2612 permit and FiatToken's revert strings, with signatures made by viem local accounts.
 */
import { randomBytes } from 'node:crypto'
import { authorizationTypes } from '@x402/evm'
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  domainSeparator,
  encodeAbiParameters,
  encodeFunctionData,
  hashDomain,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseSignature,
  toHex,
  type Address,
  type Hash,
  type Hex,
  type PrivateKeyAccount,
  type TransactionReceipt,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { SandboxChain } from '../../../chain/sandbox-chain.js'
import { startChain } from '../../../chain/start-chain.js'
import { sandboxChainId } from '../../../core/sandbox-usdc.js'
import { sandboxUsdcAbi } from '../../../chain/contracts/sandbox-usdc.generated.js'
import { legacyAuthorizationsSlot } from '../../../chain/install-contracts.js'

// x402's own EIP-3009 types (as its clients sign); receive and cancel share the fields.
const authorizationFields = authorizationTypes.TransferWithAuthorization
const transferTypes = authorizationTypes
const receiveTypes = { ReceiveWithAuthorization: authorizationFields } as const
const cancelTypes = {
  CancelAuthorization: [
    { name: 'authorizer', type: 'address' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const
const permitTypes = {
  Permit: [
    { name: 'owner', type: 'address' },
    { name: 'spender', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
  ],
} as const

type Authorization = { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }

let chain: SandboxChain
let usdc: Address

beforeAll(async () => {
  chain = await startChain()
  usdc = chain.usdc.address
})

afterAll(async () => {
  await chain?.stop()
})

const randomNonce = (): Hex => toHex(randomBytes(32))
const nowSeconds = () => BigInt(Math.floor(Date.now() / 1000))

function domain() {
  return { name: 'USDC', version: '2', chainId: sandboxChainId, verifyingContract: usdc } as const
}

/** A fresh local account with ETH for gas and, optionally, USDC. */
async function newAccount(usdcAmount = 0n): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await chain.testClient.setBalance({ address: account.address, value: parseEther('10') })
  if (usdcAmount > 0n) await chain.usdcFunder.fund(account.address, usdcAmount)
  return account
}

function wallet(account: PrivateKeyAccount) {
  return createWalletClient({ account, chain: chain.chain, transport: http(chain.rpcUrl) })
}

function balanceOf(address: Address) {
  return chain.client.readContract({ address: usdc, abi: sandboxUsdcAbi, functionName: 'balanceOf', args: [address] })
}

function authorizationState(authorizer: Address, nonce: Hex) {
  return chain.client.readContract({
    address: usdc,
    abi: sandboxUsdcAbi,
    functionName: 'authorizationState',
    args: [authorizer, nonce],
  })
}

function authorization(
  from: Address,
  to: Address,
  value: bigint,
  overrides: Partial<Authorization> = {},
): Authorization {
  return { from, to, value, validAfter: 0n, validBefore: nowSeconds() + 3600n, nonce: randomNonce(), ...overrides }
}

function signTransfer(signer: PrivateKeyAccount, message: Authorization) {
  return signer.signTypedData({
    domain: domain(),
    types: transferTypes,
    primaryType: 'TransferWithAuthorization',
    message,
  })
}

function signReceive(signer: PrivateKeyAccount, message: Authorization) {
  return signer.signTypedData({
    domain: domain(),
    types: receiveTypes,
    primaryType: 'ReceiveWithAuthorization',
    message,
  })
}

function signCancel(signer: PrivateKeyAccount, nonce: Hex) {
  return signer.signTypedData({
    domain: domain(),
    types: cancelTypes,
    primaryType: 'CancelAuthorization',
    message: { authorizer: signer.address, nonce },
  })
}

/** Splits a 65-byte signature into the (v, r, s) the FiatToken overloads take. */
function vrs(signature: Hex): [number, Hex, Hex] {
  const { v, r, s } = parseSignature(signature)
  if (v === undefined) throw new Error('expected a legacy (v, r, s) signature')
  return [Number(v), r, s]
}

function transferArgs(auth: Authorization, signature: Hex) {
  return [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, signature] as const
}

/** Simulates transferWithAuthorization (bytes overload) from `caller`. */
function simulateTransfer(caller: PrivateKeyAccount, auth: Authorization, signature: Hex) {
  return chain.client.simulateContract({
    account: caller,
    address: usdc,
    abi: sandboxUsdcAbi,
    functionName: 'transferWithAuthorization',
    args: transferArgs(auth, signature),
  })
}

async function mined(hash: Hash): Promise<TransactionReceipt> {
  const receipt = await chain.client.waitForTransactionReceipt({ hash })
  expect(receipt.status).toBe('success')
  return receipt
}

/** The revert reason of a rejected contract call, or a failure when it did not revert with one. */
async function revertReason(promise: Promise<unknown>): Promise<string> {
  let error: unknown
  try {
    await promise
  } catch (e) {
    error = e
  }
  expect(error, 'expected the call to revert').toBeInstanceOf(BaseError)
  const reverted = (error as BaseError).walk((e) => e instanceof ContractFunctionRevertedError)
  expect(reverted, `expected a contract revert, got: ${(error as Error).message}`).toBeInstanceOf(
    ContractFunctionRevertedError,
  )
  return (reverted as ContractFunctionRevertedError).reason ?? ''
}

describe('sandbox USDC metadata', () => {
  test('name, version, symbol and decimals match USDC', async () => {
    const read = <F extends 'name' | 'version' | 'symbol' | 'decimals' | 'currency'>(functionName: F) =>
      chain.client.readContract({ address: usdc, abi: sandboxUsdcAbi, functionName })
    expect(await read('name')).toBe('USDC')
    expect(await read('version')).toBe('2')
    expect(await read('symbol')).toBe('USDC')
    expect(await read('currency')).toBe('USD')
    expect(await read('decimals')).toBe(6)
    expect(chain.usdc).toMatchObject({ name: 'USDC', version: '2', decimals: 6 })
  })

  test('DOMAIN_SEPARATOR is the EIP-712 domain separator viem computes', async () => {
    const onChain = await chain.client.readContract({
      address: usdc,
      abi: sandboxUsdcAbi,
      functionName: 'DOMAIN_SEPARATOR',
    })
    const expected = domainSeparator({ domain: domain() })
    expect(onChain).toBe(expected)
    expect(onChain).toBe(
      hashDomain({
        domain: { ...domain(), chainId: BigInt(sandboxChainId) },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    )
    // A different chain id gives a different separator: the contract really uses block.chainid.
    expect(onChain).not.toBe(domainSeparator({ domain: { ...domain(), chainId: 1 } }))
  })
})

describe('transferWithAuthorization', () => {
  test('the (v, r, s) overload moves funds, marks the nonce used and emits AuthorizationUsed and Transfer', async () => {
    const payer = await newAccount(5_000_000n)
    const payee = privateKeyToAccount(generatePrivateKey())
    const relayer = await newAccount()
    const auth = authorization(payer.address, payee.address, 1_250_000n)
    const [v, r, s] = vrs(await signTransfer(payer, auth))
    expect(await authorizationState(payer.address, auth.nonce)).toBe(false)

    const hash = await wallet(relayer).writeContract({
      address: usdc,
      abi: sandboxUsdcAbi,
      functionName: 'transferWithAuthorization',
      args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, v, r, s],
    })
    const receipt = await mined(hash)

    expect(await balanceOf(payer.address)).toBe(3_750_000n)
    expect(await balanceOf(payee.address)).toBe(1_250_000n)
    expect(await balanceOf(relayer.address)).toBe(0n)
    expect(await authorizationState(payer.address, auth.nonce)).toBe(true)
    const events = parseEventLogs({ abi: sandboxUsdcAbi, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer'])
    expect(events[0]!.args).toEqual({ authorizer: payer.address, nonce: auth.nonce })
    expect(events[1]!.args).toEqual({ from: payer.address, to: payee.address, value: 1_250_000n })
  })

  test('the bytes signature overload moves funds, marks the nonce used and emits AuthorizationUsed and Transfer', async () => {
    const payer = await newAccount(2_000_000n)
    const payee = privateKeyToAccount(generatePrivateKey())
    const relayer = await newAccount()
    const auth = authorization(payer.address, payee.address, 2_000_000n)
    const signature = await signTransfer(payer, auth)

    const { request } = await simulateTransfer(relayer, auth, signature)
    const receipt = await mined(await wallet(relayer).writeContract(request))

    expect(await balanceOf(payer.address)).toBe(0n)
    expect(await balanceOf(payee.address)).toBe(2_000_000n)
    expect(await authorizationState(payer.address, auth.nonce)).toBe(true)
    const events = parseEventLogs({ abi: sandboxUsdcAbi, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer'])
    expect(events[0]!.args).toEqual({ authorizer: payer.address, nonce: auth.nonce })
    expect(events[1]!.args).toEqual({ from: payer.address, to: payee.address, value: 2_000_000n })
  })

  test('a reused nonce is rejected', async () => {
    const payer = await newAccount(3_000_000n)
    const payee = privateKeyToAccount(generatePrivateKey())
    const relayer = await newAccount()
    const auth = authorization(payer.address, payee.address, 1_000_000n)
    const signature = await signTransfer(payer, auth)
    const { request } = await simulateTransfer(relayer, auth, signature)
    await mined(await wallet(relayer).writeContract(request))

    // The same signed authorization again, by simulation and by a real transaction.
    expect(await revertReason(simulateTransfer(relayer, auth, signature))).toBe(
      'FiatTokenV2: authorization is used or canceled',
    )
    expect(
      await revertReason(
        wallet(relayer).writeContract({
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'transferWithAuthorization',
          args: transferArgs(auth, signature),
        }),
      ),
    ).toBe('FiatTokenV2: authorization is used or canceled')
    // A fresh authorization reusing the nonce with a different amount fails too.
    const again = { ...auth, value: 500_000n }
    expect(await revertReason(simulateTransfer(relayer, again, await signTransfer(payer, again)))).toBe(
      'FiatTokenV2: authorization is used or canceled',
    )
    expect(await balanceOf(payer.address)).toBe(2_000_000n)
  })

  test('an expired authorization is rejected', async () => {
    const payer = await newAccount(1_000_000n)
    const auth = authorization(payer.address, privateKeyToAccount(generatePrivateKey()).address, 1_000n, {
      validBefore: nowSeconds() - 60n,
    })
    expect(await revertReason(simulateTransfer(payer, auth, await signTransfer(payer, auth)))).toBe(
      'FiatTokenV2: authorization is expired',
    )
  })

  test('an authorization that is not yet valid is rejected', async () => {
    const payer = await newAccount(1_000_000n)
    const auth = authorization(payer.address, privateKeyToAccount(generatePrivateKey()).address, 1_000n, {
      validAfter: nowSeconds() + 3600n,
      validBefore: nowSeconds() + 7200n,
    })
    expect(await revertReason(simulateTransfer(payer, auth, await signTransfer(payer, auth)))).toBe(
      'FiatTokenV2: authorization is not yet valid',
    )
  })

  test('a signature by another key is rejected', async () => {
    const payer = await newAccount(1_000_000n)
    const impostor = privateKeyToAccount(generatePrivateKey())
    const relayer = await newAccount()
    const auth = authorization(payer.address, impostor.address, 1_000_000n)
    const forged = await signTransfer(impostor, auth)
    expect(await revertReason(simulateTransfer(relayer, auth, forged))).toBe('FiatTokenV2: invalid signature')
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: relayer,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'transferWithAuthorization',
          args: [auth.from, auth.to, auth.value, auth.validAfter, auth.validBefore, auth.nonce, ...vrs(forged)],
        }),
      ),
    ).toBe('FiatTokenV2: invalid signature')
    // The payer's own signature over different terms does not authorize these terms either.
    const tampered = await signTransfer(payer, { ...auth, value: 1n })
    expect(await revertReason(simulateTransfer(relayer, auth, tampered))).toBe('FiatTokenV2: invalid signature')
    expect(await balanceOf(payer.address)).toBe(1_000_000n)
  })

  test('a value above the balance is rejected', async () => {
    const payer = await newAccount(1_000_000n)
    const relayer = await newAccount()
    const auth = authorization(payer.address, privateKeyToAccount(generatePrivateKey()).address, 1_000_001n)
    const signature = await signTransfer(payer, auth)
    expect(await revertReason(simulateTransfer(relayer, auth, signature))).toBe(
      'ERC20: transfer amount exceeds balance',
    )
    // The revert leaves the nonce unused.
    expect(await authorizationState(payer.address, auth.nonce)).toBe(false)
  })
})

describe('receiveWithAuthorization', () => {
  test('the payee can collect a signed authorization (both overloads)', async () => {
    const payer = await newAccount(3_000_000n)
    const payee = await newAccount()

    const first = authorization(payer.address, payee.address, 1_000_000n)
    const { request } = await chain.client.simulateContract({
      account: payee,
      address: usdc,
      abi: sandboxUsdcAbi,
      functionName: 'receiveWithAuthorization',
      args: transferArgs(first, await signReceive(payer, first)),
    })
    const receipt = await mined(await wallet(payee).writeContract(request))
    const events = parseEventLogs({ abi: sandboxUsdcAbi, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer'])
    expect(await authorizationState(payer.address, first.nonce)).toBe(true)

    const second = authorization(payer.address, payee.address, 500_000n)
    const [v, r, s] = vrs(await signReceive(payer, second))
    await mined(
      await wallet(payee).writeContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'receiveWithAuthorization',
        args: [second.from, second.to, second.value, second.validAfter, second.validBefore, second.nonce, v, r, s],
      }),
    )
    expect(await balanceOf(payer.address)).toBe(1_500_000n)
    expect(await balanceOf(payee.address)).toBe(1_500_000n)
  })

  test('another caller cannot submit it', async () => {
    const payer = await newAccount(1_000_000n)
    const payee = await newAccount()
    const frontRunner = await newAccount()
    const auth = authorization(payer.address, payee.address, 1_000_000n)
    const signature = await signReceive(payer, auth)
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: frontRunner,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'receiveWithAuthorization',
          args: transferArgs(auth, signature),
        }),
      ),
    ).toBe('FiatTokenV2: caller must be the payee')
    // A receive authorization is not a transfer authorization (different type hash).
    expect(await revertReason(simulateTransfer(frontRunner, auth, signature))).toBe('FiatTokenV2: invalid signature')
    expect(await balanceOf(payee.address)).toBe(0n)
  })
})

describe('cancelAuthorization', () => {
  test('the bytes overload cancels a nonce before use', async () => {
    const payer = await newAccount(1_000_000n)
    const relayer = await newAccount()
    const auth = authorization(payer.address, privateKeyToAccount(generatePrivateKey()).address, 1_000_000n)
    const transferSignature = await signTransfer(payer, auth)

    const { request } = await chain.client.simulateContract({
      account: relayer,
      address: usdc,
      abi: sandboxUsdcAbi,
      functionName: 'cancelAuthorization',
      args: [payer.address, auth.nonce, await signCancel(payer, auth.nonce)],
    })
    const receipt = await mined(await wallet(relayer).writeContract(request))
    const events = parseEventLogs({ abi: sandboxUsdcAbi, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(['AuthorizationCanceled'])
    expect(events[0]!.args).toEqual({ authorizer: payer.address, nonce: auth.nonce })
    expect(await authorizationState(payer.address, auth.nonce)).toBe(true)

    expect(await revertReason(simulateTransfer(relayer, auth, transferSignature))).toBe(
      'FiatTokenV2: authorization is used or canceled',
    )
    expect(await balanceOf(payer.address)).toBe(1_000_000n)
  })

  test('the (v, r, s) overload cancels a nonce before use, and a used nonce cannot be canceled', async () => {
    const payer = await newAccount(1_000_000n)
    const relayer = await newAccount()
    const auth = authorization(payer.address, privateKeyToAccount(generatePrivateKey()).address, 1_000_000n)
    const [v, r, s] = vrs(await signCancel(payer, auth.nonce))
    await mined(
      await wallet(payer).writeContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'cancelAuthorization',
        args: [payer.address, auth.nonce, v, r, s],
      }),
    )
    expect(await authorizationState(payer.address, auth.nonce)).toBe(true)
    expect(await revertReason(simulateTransfer(relayer, auth, await signTransfer(payer, auth)))).toBe(
      'FiatTokenV2: authorization is used or canceled',
    )
    // Canceling it again fails the same way.
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: relayer,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'cancelAuthorization',
          args: [payer.address, auth.nonce, v, r, s],
        }),
      ),
    ).toBe('FiatTokenV2: authorization is used or canceled')
  })

  test('a cancellation signed by another key is rejected', async () => {
    const payer = await newAccount()
    const nonce = randomNonce()
    const other = privateKeyToAccount(generatePrivateKey())
    const forged = await other.signTypedData({
      domain: domain(),
      types: cancelTypes,
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce },
    })
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: payer,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'cancelAuthorization',
          args: [payer.address, nonce, forged],
        }),
      ),
    ).toBe('FiatTokenV2: invalid signature')
    expect(await authorizationState(payer.address, nonce)).toBe(false)
  })
})

describe('permit (EIP-2612)', () => {
  test('a signed permit sets the allowance and increments the nonce; replaying it fails', async () => {
    const holder = await newAccount(1_000_000n)
    const spender = await newAccount()
    const nonce = await chain.client.readContract({
      address: usdc,
      abi: sandboxUsdcAbi,
      functionName: 'nonces',
      args: [holder.address],
    })
    expect(nonce).toBe(0n)
    const deadline = nowSeconds() + 3600n
    const value = 700_000n
    const signature = await holder.signTypedData({
      domain: domain(),
      types: permitTypes,
      primaryType: 'Permit',
      message: { owner: holder.address, spender: spender.address, value, nonce, deadline },
    })
    const [v, r, s] = vrs(signature)
    const receipt = await mined(
      await wallet(spender).writeContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'permit',
        args: [holder.address, spender.address, value, deadline, v, r, s],
      }),
    )
    const events = parseEventLogs({ abi: sandboxUsdcAbi, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(['Approval'])
    expect(
      await chain.client.readContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'allowance',
        args: [holder.address, spender.address],
      }),
    ).toBe(value)
    expect(
      await chain.client.readContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'nonces',
        args: [holder.address],
      }),
    ).toBe(1n)

    // The nonce moved on, so the same signature no longer verifies (bytes overload this time).
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: spender,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'permit',
          args: [holder.address, spender.address, value, deadline, signature],
        }),
      ),
    ).toBe('FiatTokenV2: invalid signature')

    // The allowance is usable.
    const { request } = await chain.client.simulateContract({
      account: spender,
      address: usdc,
      abi: sandboxUsdcAbi,
      functionName: 'transferFrom',
      args: [holder.address, spender.address, value],
    })
    await mined(await wallet(spender).writeContract(request))
    expect(await balanceOf(spender.address)).toBe(value)
    expect(await balanceOf(holder.address)).toBe(300_000n)
  })
})

describe('access control', () => {
  test('mint by a non-minter is rejected', async () => {
    const stranger = await newAccount()
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: stranger,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'mint',
          args: [stranger.address, 1_000_000n],
        }),
      ),
    ).toBe('FiatToken: caller is not a minter')
    expect(
      await chain.client.readContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'isMinter',
        args: [chain.accounts.minter.address],
      }),
    ).toBe(true)
    expect(await balanceOf(stranger.address)).toBe(0n)
  })

  test('initialize cannot be called twice', async () => {
    const stranger = await newAccount()
    expect(
      await revertReason(
        chain.client.simulateContract({
          account: stranger,
          address: usdc,
          abi: sandboxUsdcAbi,
          functionName: 'initialize',
          args: [stranger.address, 'Hijacked'],
        }),
      ),
    ).toBe('FiatToken: contract is already initialized')
    expect(await chain.client.readContract({ address: usdc, abi: sandboxUsdcAbi, functionName: 'owner' })).toBe(
      chain.accounts.minter.address,
    )
  })
})

describe('the record of used authorizations (packed, by generations)', () => {
  /** Storage slots of the token's layout (solc's, chain/contracts/SandboxUSDC.sol). */
  const slots = { legacy: 6n, generation: 9n, count: 10n, legacyFlag: 12n } as const
  const storageAt = async (slot: Hex) => BigInt((await chain.client.getStorageAt({ address: usdc, slot })) ?? '0x0')

  test("the legacy flag's slot is the one svc writes", () => {
    expect(legacyAuthorizationsSlot).toBe(toHex(slots.legacyFlag, { size: 32 }))
  })

  /** `count` transfers of 1 unit, signed by `payers` in turn and sent by as many relayers at once. */
  async function transfers(payers: PrivateKeyAccount[], relayers: PrivateKeyAccount[], payee: Address, count: number) {
    const done: { auth: Authorization; signature: Hex }[] = []
    await Promise.all(
      payers.map(async (payer, i) => {
        for (let k = i; k < count; k += payers.length) {
          const auth = authorization(payer.address, payee, 1n)
          const signature = await signTransfer(payer, auth)
          await mined(
            await wallet(relayers[i]!).writeContract({
              address: usdc,
              abi: sandboxUsdcAbi,
              functionName: 'transferWithAuthorization',
              args: transferArgs(auth, signature),
              gas: 200_000n,
            }),
          )
          done.push({ auth, signature })
        }
      }),
    )
    return done
  }

  test('each authorization recorded is used and a replay refused, fresh ones are not; a transfer reads no mapping slot it leaves empty', async () => {
    const payers = await Promise.all(Array.from({ length: 8 }, () => newAccount(1_000n)))
    const relayers = await Promise.all(Array.from({ length: 8 }, () => newAccount()))
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const used = await transfers(payers, relayers, payee, 200)
    expect(await balanceOf(payee)).toBe(200n)
    expect((await Promise.all(used.map(({ auth }) => authorizationState(auth.from, auth.nonce)))).every(Boolean)).toBe(
      true,
    )
    const fresh = await Promise.all(
      payers.flatMap((payer) => Array.from({ length: 25 }, () => authorizationState(payer.address, randomNonce()))),
    )
    expect(fresh.some(Boolean)).toBe(false)
    for (const { auth, signature } of [used[0]!, used.at(-1)!])
      expect(await revertReason(simulateTransfer(relayers[0]!, auth, signature))).toBe(
        'FiatTokenV2: authorization is used or canceled',
      )

    // Anvil keeps every slot a mined transaction read, and hashes it into each block's state root: a transfer reads
    // no mapping slot of the token that it leaves empty (a fixed variable, such as the legacy flag, is one slot for good).
    const auth = authorization(payers[0]!.address, payee, 1n)
    const args = transferArgs(auth, await signTransfer(payers[0]!, auth))
    const data = encodeFunctionData({ abi: sandboxUsdcAbi, functionName: 'transferWithAuthorization', args })
    const { accessList } = await chain.client.createAccessList({
      account: relayers[0]!.address,
      to: usdc,
      data,
      gas: 200_000n,
    })
    const keys = accessList.find((entry) => entry.address.toLowerCase() === usdc.toLowerCase())?.storageKeys ?? []
    expect(keys.length).toBeGreaterThan(6)
    const before = await Promise.all(keys.map((key) => storageAt(key)))
    const receipt = await mined(
      await wallet(relayers[0]!).writeContract({
        address: usdc,
        abi: sandboxUsdcAbi,
        functionName: 'transferWithAuthorization',
        args,
        gas: 200_000n,
      }),
    )
    const after = await Promise.all(keys.map((key) => storageAt(key)))
    expect(keys.filter((key, i) => before[i] === 0n && after[i] === 0n && BigInt(key) >= 64n)).toEqual([])
    // Mainnet USDC costs about 80k gas; svc's, with its packed record, stays within 120k here.
    expect(receipt.gasUsed).toBeLessThan(120_000n)
  })

  test('over three generations (each one moved on by setting its count near 3/4 full): every authorization used, fresh ones not, replays refused', async () => {
    const payers = await Promise.all(Array.from({ length: 8 }, () => newAccount(1_000n)))
    const relayers = await Promise.all(Array.from({ length: 8 }, () => newAccount()))
    const payee = privateKeyToAccount(generatePrivateKey()).address
    const generation = async () => storageAt(toHex(slots.generation, { size: 32 }))
    const used: { auth: Authorization; signature: Hex }[] = []
    const start = await generation()
    for (const step of [0n, 1n]) {
      // 1,024 buckets of four in the first generation, twice as many in each next one, 3/4 full: 40 short of it.
      const threshold = (3_072n << (start + step)) - 40n
      await chain.testClient.setStorageAt({
        address: usdc,
        index: toHex(slots.count, { size: 32 }),
        value: toHex(threshold, { size: 32 }),
      })
      used.push(...(await transfers(payers, relayers, payee, 80)))
      expect(await generation()).toBe(start + step + 1n)
    }
    used.push(...(await transfers(payers, relayers, payee, 40)))
    const states = await Promise.all(used.map(({ auth }) => authorizationState(auth.from, auth.nonce)))
    expect(states.every(Boolean)).toBe(true)
    const fresh = await Promise.all(
      payers.flatMap((payer) => Array.from({ length: 25 }, () => authorizationState(payer.address, randomNonce()))),
    )
    expect(fresh.some(Boolean)).toBe(false)
    // Recorded in the oldest of the three generations, and in the newest.
    for (const { auth, signature } of [used[0]!, used.at(-1)!])
      expect(await revertReason(simulateTransfer(relayers[0]!, auth, signature))).toBe(
        'FiatTokenV2: authorization is used or canceled',
      )
  })

  test("an older svc's token, replaced by this one: what it recorded (a slot a nonce) still counts as used", async () => {
    const payer = await newAccount(1_000n)
    const relayer = await newAccount()
    const auth = authorization(payer.address, privateKeyToAccount(generatePrivateKey()).address, 1n)
    const signature = await signTransfer(payer, auth)
    // The older token's record of this nonce.
    const inner = keccak256(
      encodeAbiParameters([{ type: 'address' }, { type: 'uint256' }], [payer.address, slots.legacy]),
    )
    const legacySlot = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'bytes32' }], [auth.nonce, inner]))
    await chain.testClient.setStorageAt({ address: usdc, index: legacySlot, value: toHex(1n, { size: 32 }) })
    // A token that never had it does not read it.
    expect(await authorizationState(payer.address, auth.nonce)).toBe(false)

    // svc starting on a saved chain whose token has other code brings it up to this build's, and says so in storage.
    const { installContracts } = await import('../../../chain/install-contracts.js')
    const { createTxSender } = await import('../../../chain/relay/tx-sender.js')
    await chain.testClient.setCode({ address: usdc, bytecode: '0x00' })
    const minter = createTxSender({ client: chain.client, account: chain.accounts.minter, chainId: chain.chainId })
    await installContracts({ client: chain.client, testClient: chain.testClient, minter }, { offline: true })
    expect(await storageAt(toHex(slots.legacyFlag, { size: 32 }))).toBe(1n)
    expect(await authorizationState(payer.address, auth.nonce)).toBe(true)
    expect(await revertReason(simulateTransfer(relayer, auth, signature))).toBe(
      'FiatTokenV2: authorization is used or canceled',
    )
    expect(await authorizationState(payer.address, randomNonce())).toBe(false)
  })
})

describe('dev accounts', () => {
  test('the hard-coded minter and relayer keys are the mnemonic accounts 0 and 1', async () => {
    const { mnemonicToAccount, privateKeyToAccount } = await import('viem/accounts')
    const { accountIndex, devAccountKeys, sandboxMnemonic } = await import('../../../chain/constants.js')
    for (const role of ['minter', 'relayer'] as const)
      expect(privateKeyToAccount(devAccountKeys[role]).address).toBe(
        mnemonicToAccount(sandboxMnemonic, { addressIndex: accountIndex[role] }).address,
      )
  })

  test("the relayer pool's keys are the mnemonic accounts 10 to 24, all dev accounts Anvil creates", async () => {
    const { mnemonicToAccount, privateKeyToAccount } = await import('viem/accounts')
    const { devAccountCount, relayerPoolFirstIndex, relayerPoolKeys, sandboxMnemonic } = await import(
      '../../../chain/constants.js'
    )
    for (const [i, key] of relayerPoolKeys.entries())
      expect(privateKeyToAccount(key).address).toBe(
        mnemonicToAccount(sandboxMnemonic, { addressIndex: relayerPoolFirstIndex + i }).address,
      )
    expect(relayerPoolFirstIndex + relayerPoolKeys.length).toBe(devAccountCount)
  })
})
