// PATCH of viem (2.57.1): `recoverPublicKey` (viem/_esm/utils/signature/recoverPublicKey.js), applied at build time
// to the `svc` command's bundle only, by this esbuild plugin (bin/build.js). viem on disk is not touched.
//
// What: the function recovers with libsecp256k1 (the optional `secp256k1` package's native binding) when that loads,
// and answers a (hash, signature) it recovered a moment ago from memory (an LRU of 1,024) instead of recovering it
// again. Only the plain case goes native (a 32-byte hash and a 65-byte signature as hex, v of 0, 1, 27 or 28); anything
// else, a binding that does not load (a platform without a prebuilt one and no compiler) or a signature libsecp256k1
// refuses, goes to viem's own code, which then answers or throws as it always does. A viem whose module changed shape
// is left alone, with a build warning.
//
// Why: the official exact scheme recovers the payer's EIP-3009 signature when it verifies a payment, and again when
// it settles it (its settle verifies first), through viem's `recoverAddress` → `recoverPublicKey`: noble, pure
// JavaScript, 1.4 ms on a quiet machine and 2–2.5 ms under 16 buyers. Those two recoveries were about a quarter of
// svc's CPU per paid request. libsecp256k1 recovers in about 60 µs, and the second recovery is the same
// (hash, signature) pair as the first. x402 calls viem directly (not the facilitator signer), so the bundle is the
// one place this can be done without changing the protocol code: the scheme still recovers and compares the signer
// itself, through the same function.
//
// When it can go: when @x402/evm routes signature checks through `FacilitatorEvmSigner` again (its 2.10 signer had
// `verifyTypedData` there; svc's signer could then recover natively and remember), or when viem's own recovery is
// about as fast (native, or noble within a few hundred µs). test/build/signature-recovery.test.ts checks the patch
// against noble; `npm run bench -- --only issue_11` shows what removing it costs (paid latency and req/s).
//
// The SDK's startSandbox() runs the per-file build on the user's own viem, without this.
import { readFileSync } from 'node:fs'

/** Recovered keys kept (a few seconds of payments under load). */
const remembered = 1_024

const target = /[\\/]viem[\\/]_esm[\\/]utils[\\/]signature[\\/]recoverPublicKey\.js$/
const declaration = 'export async function recoverPublicKey('

/** Appended to viem's module; its own function is renamed `recoverPublicKeyWithNoble`. */
const fastPath = `
import { createRequire as svcCreateRequire } from 'node:module'
import { LRUCache as SvcLRUCache } from 'lru-cache'

/** libsecp256k1's binding (not the package's main module, which falls back to a slow pure-JavaScript curve). */
const svcSecp256k1 = (() => {
  try {
    return svcCreateRequire(import.meta.url)('secp256k1/bindings')
  } catch {
    return undefined
  }
})()
const svcHash = /^0x[0-9a-fA-F]{64}$/
const svcSignature = /^0x[0-9a-fA-F]{130}$/

/** The uncompressed key as viem answers it (lower-case hex), or undefined to leave the case to noble. */
function recoverNatively(hash, signature) {
  if (!svcSecp256k1 || !svcHash.test(hash) || !svcSignature.test(signature)) return undefined
  const v = Number.parseInt(signature.slice(130), 16)
  const recoveryBit = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : undefined
  if (recoveryBit === undefined) return undefined
  try {
    const key = svcSecp256k1.ecdsaRecover(Buffer.from(signature.slice(2, 130), 'hex'), recoveryBit, Buffer.from(hash.slice(2), 'hex'), false)
    return \`0x\${Buffer.from(key).toString('hex')}\`
  } catch {
    return undefined
  }
}

const recoveredKeys = new SvcLRUCache({ max: ${remembered} })
export function recoverPublicKey(parameters) {
  const { hash, signature } = parameters
  if (typeof hash !== 'string' || typeof signature !== 'string') return recoverPublicKeyWithNoble(parameters)
  const key = (hash + signature).toLowerCase()
  let recovered = recoveredKeys.get(key)
  if (recovered) return recovered
  const native = recoverNatively(hash, signature)
  recovered = native === undefined ? recoverPublicKeyWithNoble(parameters) : Promise.resolve(native)
  recoveredKeys.set(key, recovered)
  recovered.catch(() => recoveredKeys.delete(key))
  return recovered
}
/** Whether recoveries go through libsecp256k1 (for svc's tests). */
export const svcNativeRecovery = svcSecp256k1 !== undefined
`

export const viemRecoverPublicKeyPatch = {
  name: 'svc-patch-viem-recover-public-key',
  setup(build) {
    build.onLoad({ filter: target }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      // A viem whose module looks otherwise is left as it is (and the build says so).
      if (!source.includes(declaration))
        return {
          contents: source,
          loader: 'js',
          warnings: [
            { text: `svc: ${args.path} changed shape; signature recoveries stay on noble and are not remembered` },
          ],
        }
      return {
        contents: source.replace(declaration, 'async function recoverPublicKeyWithNoble(') + fastPath,
        loader: 'js',
      }
    })
  },
}
