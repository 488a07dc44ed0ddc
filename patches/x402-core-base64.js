// PATCH of @x402/core (2.27.0): `safeBase64Encode` and `safeBase64Decode` (src/utils/index.ts, in one of the
// package's ESM chunks, dist/esm/chunk-*.mjs), applied at build time to the `svc` command's bundle only, by this
// esbuild plugin (bin/build.js). @x402/core on disk is not touched.
//
// What: on Node (where `Buffer` exists) a string is encoded with `Buffer.from(data, 'utf8').toString('base64')`, the
// package's own fallback, instead of its browser path (TextEncoder, one string per byte, join, btoa); and a string is
// decoded with `Buffer.from(data, 'base64').toString('utf8')` when it is canonical base64 (its length a multiple of 4,
// only the alphabet, at most two `=` at the end): there Buffer and atob read the same bytes, both UTF-8 decoders
// replace a malformed sequence alike, and a leading byte order mark is dropped as TextDecoder drops it. Any other
// string (atob's rules for it differ from Buffer's: it throws where Buffer reads on) goes to the package's own code,
// which answers or throws as it always does. A package whose chunk changed shape is left alone, with a build warning.
//
// Why: every paid answer's `PAYMENT-RESPONSE` header, every 402's `PAYMENT-REQUIRED` and every `PAYMENT-SIGNATURE`
// svc reads pass through these two: the browser path builds an array and a string per byte, about 0.1 ms of svc's
// CPU per voucher-paid request on 2 cores (3 % of it), where Buffer's native codec takes a few µs.
//
// When it can go: when @x402/core prefers Buffer on Node (or TextEncoder/`Uint8Array.toBase64`), or when
// `npm run bench -- --only channels_profile` no longer shows `safeBase64Encode`. test/build/base64.test.ts checks the
// patched functions against the package's.
//
// The SDK's startSandbox() runs the per-file build on the user's own @x402/core, without this.
import { readFileSync } from 'node:fs'

const target = /[\\/]@x402[\\/]core[\\/]dist[\\/]esm[\\/]chunk-[A-Za-z0-9_-]+\.mjs$/
const encodeDeclaration = 'function safeBase64Encode(data) {'
const decodeDeclaration = 'function safeBase64Decode(data) {'
/** What the chunk must still say for the patch to apply: both functions, each with its Buffer fallback. */
const shape =
  /function safeBase64Encode\(data\) \{[\s\S]*?globalThis\.btoa\(binaryString\);\s*\}\s*return Buffer\.from\(data, "utf8"\)\.toString\("base64"\);\s*\}\s*function safeBase64Decode\(data\) \{[\s\S]*?decoder\.decode\(bytes\);\s*\}\s*return Buffer\.from\(data, "base64"\)\.toString\("utf-8"\);\s*\}/

/** Appended to the chunk; the package's own functions are renamed `…Portably`. */
const nodePath = `
const svcCanonicalBase64 = /^[A-Za-z0-9+/]*={0,2}$/
const svcHasBuffer = typeof Buffer === 'function' && typeof Buffer.from === 'function'
function safeBase64Encode(data) {
  if (!svcHasBuffer || typeof data !== 'string') return safeBase64EncodePortably(data)
  return Buffer.from(data, 'utf8').toString('base64')
}
function safeBase64Decode(data) {
  if (!svcHasBuffer || typeof data !== 'string' || data.length % 4 !== 0 || !svcCanonicalBase64.test(data))
    return safeBase64DecodePortably(data)
  const text = Buffer.from(data, 'base64').toString('utf8')
  // TextDecoder (the package's decoder) drops a leading byte order mark; Buffer keeps it.
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
}
/** Whether the chunk's base64 goes through Buffer (for svc's tests). */
export const svcBufferBase64 = svcHasBuffer
`

export const x402CoreBase64Patch = {
  name: 'svc-patch-x402-core-base64',
  setup(build) {
    build.onLoad({ filter: target }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes(encodeDeclaration)) return undefined
      // A chunk that looks otherwise is left as it is (and the build says so).
      if (!shape.test(source))
        return {
          contents: source,
          loader: 'js',
          warnings: [{ text: `svc: ${args.path} changed shape; x402's base64 stays on its browser path` }],
        }
      return {
        contents:
          source
            .replace(encodeDeclaration, 'function safeBase64EncodePortably(data) {')
            .replace(decodeDeclaration, 'function safeBase64DecodePortably(data) {') + nodePath,
        loader: 'js',
      }
    })
  },
}
