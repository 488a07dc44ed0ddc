/**
 * The `svc` bundle's viem `recoverPublicKey` (patches/viem-recover-public-key.js): viem bundled with the plugin, as
 * bin/build.js does, recovers with libsecp256k1 and gets noble's answer, answers the same (hash, signature) again from
 * memory, recovers anything else afresh, and leaves what it does not take to noble, errors included.
 */
import { keccak256, toHex, type Hex } from 'viem'
import { publicKeyToAddress, recoverPublicKey } from 'viem/utils'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { viemRecoverPublicKeyPatch } from '../../patches/viem-recover-public-key.js'
import { dependencyFile, importPatchedBundle } from '../helpers/patched-bundle.js'

test("the bundle's recoverPublicKey remembers a recovery and stays right", async () => {
  const viemModule = dependencyFile('viem/_esm/utils/signature/recoverPublicKey.js')
  const { module: bundled, warnings } = await importPatchedBundle<{
    recoverPublicKey(parameters: { hash: Hex; signature: Hex }): Promise<Hex>
    recoverAddress(parameters: { hash: Hex; signature: Hex }): Promise<Hex>
    svcNativeRecovery: boolean
  }>(
    `export { recoverPublicKey, recoverAddress } from 'viem'\nexport { svcNativeRecovery } from ${JSON.stringify(viemModule)}\n`,
    [viemRecoverPublicKeyPatch],
  )
  expect(warnings).toEqual([])
  // This machine's platform has the prebuilt binding (linux-x64), so the native path is the one under test.
  expect(bundled.svcNativeRecovery).toBe(true)

  const [alice, bob] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())]
  const hash = keccak256(toHex('a payment'))
  const [aliceSignature, bobSignature] = await Promise.all([alice.sign({ hash }), bob.sign({ hash })])

  const first = bundled.recoverPublicKey({ hash, signature: aliceSignature })
  expect(publicKeyToAddress(await first)).toBe(alice.address)
  // The same pair again: the very answer of the first call, not a second recovery.
  expect(bundled.recoverPublicKey({ hash, signature: aliceSignature })).toBe(first)
  expect(
    bundled.recoverPublicKey({ hash: hash.toUpperCase().replace('0X', '0x') as Hex, signature: aliceSignature }),
  ).toBe(first)
  // Another signature, or another hash, is recovered afresh.
  expect(await bundled.recoverAddress({ hash, signature: bobSignature })).toBe(bob.address)
  const other = keccak256(toHex('another payment'))
  expect(await bundled.recoverAddress({ hash: other, signature: aliceSignature })).not.toBe(alice.address)

  // The very key noble recovers, for many signatures, v as 27/28 and as 0/1.
  for (let i = 0; i < 20; i++) {
    const message = keccak256(toHex(`payment ${i}`))
    const signature = await alice.sign({ hash: message })
    expect(await bundled.recoverPublicKey({ hash: message, signature })).toBe(
      await recoverPublicKey({ hash: message, signature }),
    )
    const yParity = `${signature.slice(0, 130)}0${Number.parseInt(signature.slice(130), 16) - 27}` as Hex
    expect(await bundled.recoverPublicKey({ hash: message, signature: yParity })).toBe(
      await recoverPublicKey({ hash: message, signature }),
    )
  }
  // Cases left to noble throw noble's errors: a v it does not know, r = 0, a short signature.
  const badV = `${aliceSignature.slice(0, 130)}1d` as Hex
  await expect(bundled.recoverPublicKey({ hash, signature: badV })).rejects.toThrow('Invalid yParityOrV value')
  const zeroR = `0x${'0'.repeat(64)}${aliceSignature.slice(66)}` as Hex
  await expect(bundled.recoverPublicKey({ hash, signature: zeroR })).rejects.toThrow()
  await expect(recoverPublicKey({ hash, signature: zeroR })).rejects.toThrow()
  await expect(bundled.recoverPublicKey({ hash, signature: aliceSignature.slice(0, 100) as Hex })).rejects.toThrow(
    'invalid signature length',
  )
})
