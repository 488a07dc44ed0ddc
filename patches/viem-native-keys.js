// PATCH of viem (2.57.1): `privateKeyToAccount` (viem/_esm/accounts/privateKeyToAccount.js) and `sign`
// (viem/_esm/accounts/utils/sign.js), applied at build time to the `svc` command's bundle only, by this esbuild plugin
// (bin/build.js). viem on disk is not touched.
//
// What: an account's public key is made by libsecp256k1 (the optional `secp256k1` package's native binding, as
// patches/viem-recover-public-key.js loads it), and a hash is signed by it, where viem's noble code would do both in
// JavaScript. Only the plain cases go native (a private key as 32 bytes of hex; a 32-byte hash, signed without the
// extra entropy of viem's `setSignEntropy`): libsecp256k1 signs as RFC 6979 and noble with `lowS` do, so the signature
// is the very one noble gives (test/build/native-keys.test.ts compares them). Anything else, a binding that does not
// load, or a key libsecp256k1 refuses, goes to viem's own code, which answers or throws as it always does. A viem whose
// module changed shape is left alone, with a build warning.
//
// Why: noble builds its curve's tables on the first key or signature (45–100 ms of CPU), then takes 1.5 ms for each
// public key. `svc up` made 18 accounts (the minter, 16 relayers, the escrow's receiver authorizer) and signed the
// sandbox USDC's initialize transaction before its ready line: about 90 ms of its start's CPU on a busy machine, none
// of it with libsecp256k1 (about 30 µs a key or a signature).
//
// The SDK's startSandbox() runs its buyer on the user's own viem, without this (svc's start in it is the bundle's).
import { readFileSync } from 'node:fs'

/** libsecp256k1's binding, or undefined (the package's main module would fall back to a slow pure-JavaScript curve). */
const binding = `
import { createRequire as svcKeysCreateRequire } from 'node:module'
const svcKeysSecp256k1 = (() => {
  try {
    return svcKeysCreateRequire(import.meta.url)('secp256k1/bindings')
  } catch {
    return undefined
  }
})()
const svcKeysHex32 = /^0x[0-9a-fA-F]{64}$/
`

const accountTarget = /[\\/]viem[\\/]_esm[\\/]accounts[\\/]privateKeyToAccount\.js$/
const accountCall = 'secp256k1.getPublicKey(privateKey.slice(2), false)'
const accountPatch = `${binding}
/** The uncompressed public key of \`privateKey\`, by libsecp256k1, else by noble (its answer or its error). */
function svcPublicKey(privateKey) {
  if (svcKeysSecp256k1 && typeof privateKey === 'string' && svcKeysHex32.test(privateKey)) {
    try {
      return svcKeysSecp256k1.publicKeyCreate(Buffer.from(privateKey.slice(2), 'hex'), false)
    } catch {}
  }
  return secp256k1.getPublicKey(privateKey.slice(2), false)
}
/** Whether keys are made by libsecp256k1 (for svc's tests). */
export const svcNativeKeys = svcKeysSecp256k1 !== undefined
`

const signTarget = /[\\/]viem[\\/]_esm[\\/]accounts[\\/]utils[\\/]sign\.js$/
const signDeclaration = 'export async function sign({'
const signPatch = `${binding}
/** r, s and the recovery bit of \`hash\` signed by libsecp256k1, or undefined to leave the case to noble. */
function svcSignNatively(hash, privateKey) {
  if (!svcKeysSecp256k1 || extraEntropy !== false) return undefined
  if (typeof hash !== 'string' || typeof privateKey !== 'string') return undefined
  if (!svcKeysHex32.test(hash) || !svcKeysHex32.test(privateKey)) return undefined
  try {
    const { signature, recid } = svcKeysSecp256k1.ecdsaSign(
      Buffer.from(hash.slice(2), 'hex'),
      Buffer.from(privateKey.slice(2), 'hex'),
    )
    const hex = Buffer.from(signature).toString('hex')
    return { r: \`0x\${hex.slice(0, 64)}\`, s: \`0x\${hex.slice(64)}\`, recovery: recid }
  } catch {
    return undefined
  }
}
export async function sign(parameters) {
  const { hash, privateKey, to = 'object' } = parameters
  const native = svcSignNatively(hash, privateKey)
  if (native === undefined) return signWithNoble(parameters)
  const signature = { r: native.r, s: native.s, v: native.recovery ? 28n : 27n, yParity: native.recovery }
  if (to === 'bytes' || to === 'hex') return serializeSignature({ ...signature, to })
  return signature
}
/** Whether signatures are made by libsecp256k1 (for svc's tests). */
export const svcNativeSigning = svcKeysSecp256k1 !== undefined
`

/** A module of viem's changed by `change`, or left as it is with a warning when it does not hold `marker`. */
function patched(path, marker, change, what) {
  const source = readFileSync(path, 'utf8')
  if (!source.includes(marker))
    return {
      contents: source,
      loader: 'js',
      warnings: [{ text: `svc: ${path} changed shape; ${what} stay on noble` }],
    }
  return { contents: change(source), loader: 'js' }
}

export const viemNativeKeysPatch = {
  name: 'svc-patch-viem-native-keys',
  setup(build) {
    build.onLoad({ filter: accountTarget }, (args) =>
      patched(
        args.path,
        accountCall,
        (source) => source.replace(accountCall, 'svcPublicKey(privateKey)') + accountPatch,
        'public keys',
      ),
    )
    build.onLoad({ filter: signTarget }, (args) =>
      patched(
        args.path,
        signDeclaration,
        (source) => source.replace(signDeclaration, 'async function signWithNoble({') + signPatch,
        'signatures',
      ),
    )
  },
}
