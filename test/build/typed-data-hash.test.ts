/**
 * The `svc` bundle's viem EIP-712 hashing (patches/viem-typed-data-hash.js): viem bundled with the plugin, as
 * bin/build.js does, answers viem's own `hashTypedData` for the typed data svc verifies (EIP-3009, a Permit2 witness
 * with nested types, a channel's voucher and config) and for odd domains (a salt, custom domain types, none), remembers
 * plain domains by their values and type hashes by their type string, and throws what viem throws, remembering nothing.
 */
import { authorizationTypes, permit2WitnessTypes, voucherTypes } from '@x402/evm'
import { hashDomain, hashTypedData, type HashTypedDataParameters } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { viemTypedDataHashPatch } from '../../patches/viem-typed-data-hash.js'
import { dependencyFile, importPatchedBundle } from '../helpers/patched-bundle.js'

const address = () => privateKeyToAddress(generatePrivateKey())
const bytes32 = () => generatePrivateKey()
const token = { name: 'USDC', version: '2', chainId: 84532, verifyingContract: address() }
// The typed data is x402's own (@x402/evm's types, as its clients sign and svc's facilitator verifies).
const transfer = (domain: object): HashTypedDataParameters => ({
  domain,
  types: authorizationTypes,
  primaryType: 'TransferWithAuthorization',
  message: { from: address(), to: address(), value: 10_000n, validAfter: 0n, validBefore: 2n ** 40n, nonce: bytes32() },
})
const voucher = (chainId: number | bigint): HashTypedDataParameters => ({
  domain: { name: 'x402 Batch Settlement', version: '1', chainId, verifyingContract: address() },
  types: voucherTypes,
  primaryType: 'Voucher',
  message: { channelId: bytes32(), maxClaimableAmount: 100n },
})
const witness = (): HashTypedDataParameters => ({
  domain: { name: 'Permit2', chainId: 84532, verifyingContract: address() },
  types: permit2WitnessTypes,
  primaryType: 'PermitWitnessTransferFrom',
  message: {
    permitted: { token: address(), amount: 5n },
    spender: address(),
    nonce: 7n,
    deadline: 9n,
    witness: { to: address(), validAfter: 0n },
  },
})

test("the bundle's EIP-712 hashing remembers domains and types and stays right", async () => {
  const viemModule = dependencyFile('viem/_esm/utils/signature/hashTypedData.js')
  const { module: bundled, warnings } = await importPatchedBundle<{
    hashTypedData: typeof hashTypedData
    hashDomain: typeof hashDomain
    svcRememberedTypedData(): { domains: number; types: number }
  }>(
    `export { hashTypedData, hashDomain } from 'viem'\nexport { svcRememberedTypedData } from ${JSON.stringify(viemModule)}\n`,
    [viemTypedDataHashPatch],
  )
  expect(warnings).toEqual([])
  const same = (parameters: HashTypedDataParameters) =>
    expect(bundled.hashTypedData(parameters)).toBe(hashTypedData(parameters))

  // Many payments on one token's domain: viem's hashes, the domain and the type remembered once.
  for (let i = 0; i < 10; i++) same(transfer(token))
  expect(bundled.svcRememberedTypedData()).toEqual({ domains: 1, types: 2 })
  same(transfer({ ...token }))
  expect(bundled.svcRememberedTypedData()).toEqual({ domains: 1, types: 2 })
  // Any field of the domain changed: hashed afresh (the chain id as a number and as a bigint kept apart).
  for (const domain of [
    { ...token, name: 'USD Coin' },
    { ...token, version: '1' },
    { ...token, chainId: 8453 },
    { ...token, chainId: 84532n },
    { ...token, verifyingContract: address() },
  ]) {
    const parameters = transfer(domain)
    same(parameters)
    expect(bundled.hashTypedData(parameters)).not.toBe(hashTypedData(transfer(token)))
  }
  expect(bundled.svcRememberedTypedData().domains).toBe(6)
  // Vouchers, Permit2 witnesses (nested types), a domain with a salt, and none.
  for (let i = 0; i < 5; i++) {
    same(voucher(84532))
    same(witness())
  }
  same(transfer({ ...token, salt: bytes32() }))
  same(transfer({}))
  same({ ...transfer(token), domain: undefined })

  // Custom domain types (a struct inside the domain) are left to viem, and not remembered.
  const before = bundled.svcRememberedTypedData().domains
  const custom = {
    domain: { name: 'Odd', extra: { id: 1n } },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'extra', type: 'Extra' },
      ],
      Extra: [{ name: 'id', type: 'uint256' }],
    },
  } as const
  expect(bundled.hashDomain(custom as never)).toBe(hashDomain(custom as never))
  expect(bundled.svcRememberedTypedData().domains).toBe(before)

  // What viem refuses, the bundle refuses alike, and remembers nothing for.
  const broken = transfer({ ...token, verifyingContract: `0x${'a'.repeat(39)}` })
  expect(() => hashTypedData(broken)).toThrow()
  expect(() => bundled.hashTypedData(broken)).toThrow()
  const wrongType = {
    domain: { name: 'x', chainId: 'not a number' },
    types: {
      EIP712Domain: [
        { name: 'name', type: 'string' },
        { name: 'chainId', type: 'uint256' },
      ],
    },
  }
  expect(() => hashDomain(wrongType as never)).toThrow()
  expect(() => bundled.hashDomain(wrongType as never)).toThrow()
  expect(bundled.svcRememberedTypedData().domains).toBe(before)
})
