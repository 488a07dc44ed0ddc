// PATCH of @x402/core (2.27.0): `safeBase64Encode`, `safeBase64Decode` and `networkMatchesPattern`
// (src/utils/index.ts, in one of the package's ESM chunks, dist/esm/chunk-*.mjs), applied at build time to the `svc`
// command's bundle only, by this esbuild plugin (bin/build.js). @x402/core on disk is not touched.
//
// What (base64): on Node (where `Buffer` exists) a string is encoded with `Buffer.from(data, 'utf8').toString('base64')`, the
// package's own fallback, instead of its browser path (TextEncoder, one string per byte, join, btoa); and a string is
// decoded with `Buffer.from(data, 'base64').toString('utf8')` when it is canonical base64 (its length a multiple of 4,
// only the alphabet, at most two `=` at the end): there Buffer and atob read the same bytes, both UTF-8 decoders
// replace a malformed sequence alike, and a leading byte order mark is dropped as TextDecoder drops it. Any other
// string (atob's rules for it differ from Buffer's: it throws where Buffer reads on) goes to the package's own code,
// which answers or throws as it always does. A package whose chunk changed shape is left alone, with a build warning.
//
// What (network patterns): the RegExp a network pattern (`eip155:*`) becomes is made once per pattern string and
// kept (up to 256 patterns; a plain RegExp's `test` keeps no state), instead of escaping the pattern and compiling a
// new RegExp at every lookup. A pattern that is not a string goes to the package's code.
//
// Why (base64): every paid answer's `PAYMENT-RESPONSE` header, every 402's `PAYMENT-REQUIRED` and every `PAYMENT-SIGNATURE`
// svc reads pass through these two: the browser path builds an array and a string per byte, about 0.1 ms of svc's
// CPU per voucher-paid request on 2 cores (3 % of it), where Buffer's native codec takes a few µs.
// Why (network patterns): the resource server looks up its scheme's hooks by network pattern several times per
// payment (verify, its hooks, settle): about 1.5 % of svc's CPU per voucher went to building the same RegExps.
//
// When it can go: when @x402/core prefers Buffer on Node (or `Uint8Array.toBase64`) and compiles a pattern once, or
// when `npm run bench -- --only channels_profile` no longer shows `safeBase64Encode` and `networkPatternToRegExp`.
// test/build/core-utils.test.ts checks the patched functions against the package's.
//
// The SDK's startSandbox() runs the per-file build on the user's own @x402/core, without this.
import { readFileSync } from 'node:fs'

const target = /[\\/]@x402[\\/]core[\\/]dist[\\/]esm[\\/]chunk-[A-Za-z0-9_-]+\.mjs$/
const encodeDeclaration = 'function safeBase64Encode(data) {'
const decodeDeclaration = 'function safeBase64Decode(data) {'
const matchesDeclaration = 'var networkMatchesPattern = (pattern, network) => {'
/** What the chunk must still say for the patch to apply: both codecs with their Buffer fallback, and the match. */
const shape =
  /function safeBase64Encode\(data\) \{[\s\S]*?globalThis\.btoa\(binaryString\);\s*\}\s*return Buffer\.from\(data, "utf8"\)\.toString\("base64"\);\s*\}\s*function safeBase64Decode\(data\) \{[\s\S]*?decoder\.decode\(bytes\);\s*\}\s*return Buffer\.from\(data, "base64"\)\.toString\("utf-8"\);\s*\}/
const matchesShape =
  /var networkPatternToRegExp = \(pattern\) => \{\s*const source = escapeRegExp\(pattern\)\.replace\(\/\\\\\\\*\/g, "\.\*"\);\s*return new RegExp\(`\^\$\{source\}\$`\);\s*\};\s*var networkMatchesPattern = \(pattern, network\) => \{\s*return networkPatternToRegExp\(pattern\)\.test\(network\);\s*\};/

/** Appended to the chunk; the package's own functions are renamed `…Portably` and `…Afresh`. */
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

const svcNetworkPatterns = new Map()
var networkMatchesPattern = (pattern, network) => {
  if (typeof pattern !== 'string') return networkMatchesPatternAfresh(pattern, network)
  let pattern$ = svcNetworkPatterns.get(pattern)
  if (pattern$ === undefined) {
    pattern$ = networkPatternToRegExp(pattern)
    if (svcNetworkPatterns.size >= 256) svcNetworkPatterns.clear()
    svcNetworkPatterns.set(pattern, pattern$)
  }
  return pattern$.test(network)
}
/** How many network patterns are kept compiled (for svc's tests). */
export const svcNetworkPatternCount = () => svcNetworkPatterns.size
`

export const x402CoreUtilsPatch = {
  name: 'svc-patch-x402-core-utils',
  setup(build) {
    build.onLoad({ filter: target }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes(encodeDeclaration)) return undefined
      // A chunk that looks otherwise is left as it is (and the build says so).
      if (!shape.test(source) || !matchesShape.test(source))
        return {
          contents: source,
          loader: 'js',
          warnings: [
            {
              text: `svc: ${args.path} changed shape; x402's base64 and network patterns stay as the package has them`,
            },
          ],
        }
      return {
        contents:
          source
            .replace(encodeDeclaration, 'function safeBase64EncodePortably(data) {')
            .replace(decodeDeclaration, 'function safeBase64DecodePortably(data) {')
            .replace(matchesDeclaration, 'var networkMatchesPatternAfresh = (pattern, network) => {') + nodePath,
        loader: 'js',
      }
    })
  },
}
