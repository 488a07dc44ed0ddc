/**
 * The `svc` bundle's @x402/evm `computeChannelId` (patches/x402-evm-channel-id.js): the package bundled with the
 * plugin, as bin/build.js does, answers the package's own channel id for every config, remembers a config it hashed
 * (by its values, not by the object), hashes a changed field afresh, and throws what the package throws, remembering
 * nothing for it. And in that bundle the server scheme's voucher signatures recover through the patched viem.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { computeChannelId } from '@x402/evm/batch-settlement/client'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { viemRecoverPublicKeyPatch } from '../../patches/viem-recover-public-key.js'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { x402ChannelIdPatch } from '../../patches/x402-evm-channel-id.js'
import { dependencyFile, importPatchedBundle } from '../helpers/patched-bundle.js'

type ChannelConfig = Parameters<typeof computeChannelId>[0]

const address = () => privateKeyToAddress(generatePrivateKey())
const config = (): ChannelConfig => ({
  payer: address(),
  payerAuthorizer: address(),
  receiver: address(),
  receiverAuthorizer: address(),
  token: address(),
  withdrawDelay: 900,
  salt: `0x${Buffer.from(generatePrivateKey().slice(2), 'hex').toString('hex')}`,
})

test("the bundle's computeChannelId remembers a config's id and stays right", async () => {
  const esm = dependencyFile('@x402/evm/dist/esm')
  const chunk = readdirSync(esm).find(
    (name) => name.endsWith('.mjs') && readFileSync(join(esm, name), 'utf8').includes('function computeChannelId('),
  )!
  const { module: bundled, warnings } = await importPatchedBundle<{
    computeChannelId: typeof computeChannelId
    svcRememberedChannelIds(): number
  }>(
    `export { computeChannelId } from '@x402/evm/batch-settlement/client'\nexport { svcRememberedChannelIds } from ${JSON.stringify(join(esm, chunk))}\n`,
    [x402ChannelIdPatch],
  )
  expect(warnings).toEqual([])
  expect(bundled.svcRememberedChannelIds()).toBe(0)

  // The package's own id, for many configs, on a network name and on a chain id.
  const configs = Array.from({ length: 20 }, config)
  for (const each of configs) {
    expect(bundled.computeChannelId(each, 'eip155:84532')).toBe(computeChannelId(each, 'eip155:84532'))
    expect(bundled.computeChannelId(each, 31337)).toBe(computeChannelId(each, 31337))
  }
  expect(bundled.svcRememberedChannelIds()).toBe(40)
  // The same values again (another object): remembered, nothing new hashed.
  const first = configs[0]!
  expect(bundled.computeChannelId({ ...first }, 'eip155:84532')).toBe(computeChannelId(first, 'eip155:84532'))
  expect(bundled.svcRememberedChannelIds()).toBe(40)
  // The chain id as a number and as the network name it stands for hash alike, but are kept apart.
  expect(bundled.computeChannelId(first, 84532)).toBe(computeChannelId(first, 'eip155:84532'))
  expect(bundled.svcRememberedChannelIds()).toBe(41)

  // One field changed (each in turn): hashed afresh, the package's answer.
  for (const field of Object.keys(first) as (keyof ChannelConfig)[]) {
    const changed = {
      ...first,
      [field]: field === 'withdrawDelay' ? 901 : field === 'salt' ? config().salt : address(),
    }
    const id = bundled.computeChannelId(changed, 'eip155:84532')
    expect(id).toBe(computeChannelId(changed, 'eip155:84532'))
    expect(id).not.toBe(computeChannelId(first, 'eip155:84532'))
  }
  // The same address in another case is another input: the package's answer for it, whatever that is.
  const lower = { ...first, payer: first.payer.toLowerCase() as `0x${string}` }
  expect(bundled.computeChannelId(lower, 'eip155:84532')).toBe(computeChannelId(lower, 'eip155:84532'))

  // What the package refuses, the bundle refuses alike, and remembers nothing for.
  const size = bundled.svcRememberedChannelIds()
  const broken = { ...first, payer: `0x${'a'.repeat(39)}` as `0x${string}` }
  expect(() => computeChannelId(broken, 'eip155:84532')).toThrow()
  expect(() => bundled.computeChannelId(broken, 'eip155:84532')).toThrow(
    (() => {
      try {
        computeChannelId(broken, 'eip155:84532')
      } catch (error) {
        return (error as Error).message
      }
    })(),
  )
  expect(() => bundled.computeChannelId(first, 'not-a-network')).toThrow()
  expect(bundled.svcRememberedChannelIds()).toBe(size)
  // A field of another type (an object) is not remembered either: the package's answer or error, as it is.
  const odd = { ...first, withdrawDelay: { valueOf: () => 900 } as unknown as number }
  let expected: string | Error
  try {
    expected = computeChannelId(odd, 'eip155:84532')
  } catch (error) {
    expected = error as Error
  }
  if (typeof expected === 'string') expect(bundled.computeChannelId(odd, 'eip155:84532')).toBe(expected)
  else expect(() => bundled.computeChannelId(odd, 'eip155:84532')).toThrow(expected.message)
  expect(bundled.svcRememberedChannelIds()).toBe(size)
})

test("the server scheme's voucher signatures recover through the bundle's patched viem", async () => {
  // The scheme checks a voucher with viem's verifyTypedData → recoverAddress → recoverPublicKey: in a bundle made as
  // bin/build.js makes it, that is the one viem the recovery patch replaces (libsecp256k1), not a copy of its own.
  const {
    text: bundle,
    warnings,
    inputs,
  } = await importPatchedBundle(`export { BatchSettlementEvmScheme } from '@x402/evm/batch-settlement/server'\n`, [
    viemRecoverPublicKeyPatch,
    x402ChannelIdPatch,
  ])
  expect(warnings).toEqual([])
  const recoveries = inputs.filter((input) => input.endsWith('/recoverPublicKey.js'))
  expect(recoveries).toEqual(['node_modules/viem/_esm/utils/signature/recoverPublicKey.js'])
  expect(bundle).toContain('async function recoverPublicKeyWithNoble(')
  expect(bundle).toMatch(/\(["']secp256k1\/bindings["']\)/)
  expect(bundle).toContain('function computeChannelIdAfresh(')
})
