/**
 * The `svc` bundle's viem `privateKeyToAccount` and `sign` (patches/viem-native-keys.js): viem bundled with the
 * plugin, as bin/build.js does, makes an account's key and its signatures with libsecp256k1, and they are noble's very
 * answers (address, public key, signature, for hashes, messages, typed data and transactions); what it does not take
 * goes to noble, errors included.
 */
import { keccak256, parseTransaction, recoverTransactionAddress, toHex, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type setSignEntropy, sign } from 'viem/accounts'
import { expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { viemNativeKeysPatch } from '../../patches/viem-native-keys.js'
import { dependencyFile, importPatchedBundle } from '../helpers/patched-bundle.js'

type Bundled = {
  privateKeyToAccount: typeof privateKeyToAccount
  sign: typeof sign
  setSignEntropy: typeof setSignEntropy
  svcNativeKeys: boolean
  svcNativeSigning: boolean
}

const bundle = () =>
  importPatchedBundle<Bundled>(
    [
      "export { privateKeyToAccount, sign, setSignEntropy } from 'viem/accounts'",
      `export { svcNativeKeys } from ${JSON.stringify(dependencyFile('viem/_esm/accounts/privateKeyToAccount.js'))}`,
      `export { svcNativeSigning } from ${JSON.stringify(dependencyFile('viem/_esm/accounts/utils/sign.js'))}`,
    ].join('\n'),
    [viemNativeKeysPatch],
  )

test("the bundle's accounts and signatures come from libsecp256k1 and are noble's", async () => {
  const { module: bundled, warnings } = await bundle()
  expect(warnings).toEqual([])
  // This machine's platform has the prebuilt binding (linux-x64), so the native path is the one under test.
  expect(bundled.svcNativeKeys).toBe(true)
  expect(bundled.svcNativeSigning).toBe(true)

  const typedData = {
    domain: { name: 'USDC', version: '2', chainId: 845320402, verifyingContract: `0x${'11'.repeat(20)}` as Hex },
    types: { Transfer: [{ name: 'amount', type: 'uint256' }] },
    primaryType: 'Transfer' as const,
    message: { amount: 10_000n },
  }
  for (let i = 0; i < 25; i++) {
    const privateKey = generatePrivateKey()
    const [native, noble] = [bundled.privateKeyToAccount(privateKey), privateKeyToAccount(privateKey)]
    expect(native.address).toBe(noble.address)
    expect(native.publicKey).toBe(noble.publicKey)
    const hash = keccak256(toHex(`payment ${i}`))
    expect(await native.sign({ hash })).toBe(await noble.sign({ hash }))
    expect(await bundled.sign({ hash, privateKey })).toEqual(await sign({ hash, privateKey }))
    expect(await bundled.sign({ hash, privateKey, to: 'bytes' })).toEqual(await sign({ hash, privateKey, to: 'bytes' }))
    expect(await native.signMessage({ message: `hello ${i}` })).toBe(await noble.signMessage({ message: `hello ${i}` }))
    expect(await native.signTypedData(typedData)).toBe(await noble.signTypedData(typedData))
    const transaction = {
      type: 'eip1559' as const,
      chainId: 845320402,
      nonce: i,
      to: noble.address,
      gas: 21_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
    }
    const signed = await native.signTransaction(transaction)
    expect(signed).toBe(await noble.signTransaction(transaction))
    expect(await recoverTransactionAddress({ serializedTransaction: signed as never })).toBe(noble.address)
    expect(parseTransaction(signed).nonce).toBe(i)
  }

  // Cases left to noble throw noble's errors: a key out of range, a short key.
  const zero = `0x${'0'.repeat(64)}` as Hex
  expect(() => bundled.privateKeyToAccount(zero)).toThrow()
  expect(() => privateKeyToAccount(zero)).toThrow()
  const hash = keccak256(toHex('a payment'))
  await expect(bundled.sign({ hash, privateKey: zero })).rejects.toThrow()
  await expect(bundled.sign({ hash, privateKey: '0x1234' })).rejects.toThrow()
})

test('with extra entropy set, the bundle signs by noble (a valid signature of the key, not the deterministic one)', async () => {
  const { module: bundled } = await bundle()
  const privateKey = generatePrivateKey()
  const account = privateKeyToAccount(privateKey)
  const hash = keccak256(toHex('a payment'))
  const deterministic = await bundled.sign({ hash, privateKey, to: 'hex' })
  bundled.setSignEntropy(true)
  const entropic = await bundled.sign({ hash, privateKey, to: 'hex' })
  expect(entropic).not.toBe(deterministic)
  const { recoverAddress } = await import('viem')
  expect(await recoverAddress({ hash, signature: entropic })).toBe(account.address)
})
