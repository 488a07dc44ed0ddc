// An esbuild plugin for the `svc` command's bundle (bin/build.js): viem's `recoverPublicKey` answers a signature it
// recovered a moment ago from memory instead of recovering it again.
//
// Why: the official exact scheme recovers the payer's EIP-3009 signature when it verifies a payment, and again when it
// settles it (its settle verifies first), through viem's `recoverAddress` → `recoverPublicKey` (noble, pure
// JavaScript: 1.4 ms on a quiet machine, 2–2.5 ms under 16 buyers). Those two recoveries were about a quarter of svc's
// CPU per paid request; the second one is the same (hash, signature) pair as the first, so it is remembered.
// x402 calls viem directly (not the facilitator signer), so the bundle is the one place this can be done without
// changing the protocol code: the scheme still recovers and compares the signer itself, from the same function.
// The SDK's startSandbox() runs the per-file build on the user's own viem, without this.
import { readFileSync } from 'node:fs'

/** Recovered keys kept (a few seconds of payments under load). */
const remembered = 1_024

const target = /[\\/]viem[\\/]_esm[\\/]utils[\\/]signature[\\/]recoverPublicKey\.js$/
const declaration = 'export async function recoverPublicKey('

/** The memo, appended to viem's module; only hex-string arguments are remembered (the form x402 passes). */
const memo = `
const recoveredKeys = new Map()
export function recoverPublicKey(parameters) {
  const { hash, signature } = parameters
  if (typeof hash !== 'string' || typeof signature !== 'string') return recoverPublicKeyOnce(parameters)
  const key = (hash + signature).toLowerCase()
  let recovered = recoveredKeys.get(key)
  if (recovered) return recovered
  recovered = recoverPublicKeyOnce(parameters)
  recoveredKeys.set(key, recovered)
  recovered.catch(() => recoveredKeys.delete(key))
  if (recoveredKeys.size > ${remembered}) recoveredKeys.delete(recoveredKeys.keys().next().value)
  return recovered
}
`

export const recoveryMemoPlugin = {
  name: 'svc-recovery-memo',
  setup(build) {
    build.onLoad({ filter: target }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      // A viem whose module looks otherwise is left as it is (and the build says so).
      if (!source.includes(declaration)) return { contents: source, loader: 'js', warnings: [{ text: `svc: ${args.path} changed shape; signature recoveries are not remembered` }] }
      return { contents: source.replace(declaration, 'async function recoverPublicKeyOnce(') + memo, loader: 'js' }
    })
  },
}
