/**
 * The `svc` bundle's memo of viem's `recoverPublicKey` (bin/recovery-memo-plugin.js): viem bundled with the plugin, as
 * bin/build.js does, recovers the right key, answers the same (hash, signature) again from memory, and recovers
 * anything else afresh.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { keccak256, toHex, type Hex } from 'viem'
import { publicKeyToAddress } from 'viem/utils'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, expect, test } from 'vitest'
// @ts-expect-error: a JavaScript module of the build, without declarations
import { recoveryMemoPlugin } from '../../bin/recovery-memo-plugin.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const dir = mkdtempSync(join(tmpdir(), 'svc-memo-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

test("the bundle's recoverPublicKey remembers a recovery and stays right", async () => {
  const entry = join(dir, 'entry.js')
  writeFileSync(entry, "export { recoverPublicKey, recoverAddress } from 'viem'\n")
  const result = await build({ entryPoints: [entry], outfile: join(dir, 'out.mjs'), bundle: true, format: 'esm', platform: 'node', nodePaths: [join(root, 'node_modules')], plugins: [recoveryMemoPlugin], write: true, logLevel: 'silent' })
  expect(result.warnings).toEqual([])
  const bundled = (await import(pathToFileURL(join(dir, 'out.mjs')).href)) as {
    recoverPublicKey(parameters: { hash: Hex; signature: Hex }): Promise<Hex>
    recoverAddress(parameters: { hash: Hex; signature: Hex }): Promise<Hex>
  }

  const [alice, bob] = [privateKeyToAccount(generatePrivateKey()), privateKeyToAccount(generatePrivateKey())]
  const hash = keccak256(toHex('a payment'))
  const [aliceSignature, bobSignature] = await Promise.all([alice.sign({ hash }), bob.sign({ hash })])

  const first = bundled.recoverPublicKey({ hash, signature: aliceSignature })
  expect(publicKeyToAddress(await first)).toBe(alice.address)
  // The same pair again: the very answer of the first call, not a second recovery.
  expect(bundled.recoverPublicKey({ hash, signature: aliceSignature })).toBe(first)
  expect(bundled.recoverPublicKey({ hash: hash.toUpperCase().replace('0X', '0x') as Hex, signature: aliceSignature })).toBe(first)
  // Another signature, or another hash, is recovered afresh.
  expect(await bundled.recoverAddress({ hash, signature: bobSignature })).toBe(bob.address)
  const other = keccak256(toHex('another payment'))
  expect(await bundled.recoverAddress({ hash: other, signature: aliceSignature })).not.toBe(alice.address)
})
