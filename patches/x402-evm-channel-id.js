// PATCH of @x402/evm (2.27.0): `computeChannelId` (src/batch-settlement/utils.ts, in one of the package's ESM chunks,
// dist/esm/chunk-*.mjs), applied at build time to the `svc` command's bundle only, by this esbuild plugin
// (bin/build.js). @x402/evm on disk is not touched.
//
// What: the function answers a channel config (its seven fields) and network it hashed a moment ago from memory (an
// LRU of 4,096) instead of hashing it again. The key is every field's type and value exactly as given, so two inputs
// share an answer only when the original would compute it from the same values; an input it throws on (a malformed
// address) is never remembered and throws again, as before. A package whose chunk changed shape is left alone, with a
// build warning.
//
// Why: a channel id is the EIP-712 hash of the channel's config (viem's `hashTypedData`: the domain, the type and
// the struct, a dozen keccaks in pure JavaScript). The package's server scheme computes it three times for every
// voucher (the binding check, `validateChannelConfig`, and the local verify's own comparison), and its facilitator
// and channel manager again per deposit and claim, always for the same few configs: about 0.85 ms of svc's CPU per
// voucher on 2 cores, a quarter of it. The scheme still compares the id it is sent with the one the config hashes
// to; only the repeated hashing is gone.
//
// When it can go: when @x402/evm computes a voucher's channel id once (or remembers it), or when viem's EIP-712
// hashing is cheap enough that three per voucher do not show in `npm run bench -- --only channels` (its
// `cpu_per_request.voucher.svc_ms`). test/build/channel-id.test.ts checks the patched function against the package's.
//
// The SDK's startSandbox() runs the per-file build on the user's own @x402/evm, without this.
import { readFileSync } from 'node:fs'

/** Channel ids kept (far more channels than a sandbox has open at once). */
const remembered = 4_096

const target = /[\\/]@x402[\\/]evm[\\/]dist[\\/]esm[\\/]chunk-[A-Za-z0-9_-]+\.mjs$/
const declaration = 'function computeChannelId(config, networkOrChainId) {'
/** What the chunk must still say for the patch to apply: the function, hashing the seven fields. */
const shape =
  /function computeChannelId\(config, networkOrChainId\) \{[^}]*hashTypedData\(\{[\s\S]*?salt: config\.salt\s*\}\s*\}\);\s*\}/

/** Appended to the chunk; the package's own function is renamed `computeChannelIdAfresh`. */
const memo = `
import { LRUCache as SvcChannelIdLRUCache } from 'lru-cache'

const svcChannelIds = new SvcChannelIdLRUCache({ max: ${remembered} })
const svcChannelFields = ['payer', 'payerAuthorizer', 'receiver', 'receiverAuthorizer', 'token', 'withdrawDelay', 'salt']
/** Every field's type and value, as given; undefined (not remembered) when one is not a string, number or bigint. */
function svcChannelIdKey(config, networkOrChainId) {
  if (typeof config !== 'object' || config === null) return undefined
  const parts = []
  for (const value of [...svcChannelFields.map((field) => config[field]), networkOrChainId]) {
    const type = typeof value
    if (type !== 'string' && type !== 'number' && type !== 'bigint') return undefined
    parts.push(type, String(value))
  }
  return JSON.stringify(parts)
}
function computeChannelId(config, networkOrChainId) {
  const key = svcChannelIdKey(config, networkOrChainId)
  if (key === undefined) return computeChannelIdAfresh(config, networkOrChainId)
  let id = svcChannelIds.get(key)
  if (id === undefined) {
    id = computeChannelIdAfresh(config, networkOrChainId)
    svcChannelIds.set(key, id)
  }
  return id
}
/** How many channel ids are remembered (for svc's tests). */
export const svcRememberedChannelIds = () => svcChannelIds.size
`

export const x402ChannelIdPatch = {
  name: 'svc-patch-x402-evm-channel-id',
  setup(build) {
    build.onLoad({ filter: target }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      if (!source.includes(declaration)) return undefined
      // A chunk that looks otherwise is left as it is (and the build says so).
      if (!shape.test(source))
        return {
          contents: source,
          loader: 'js',
          warnings: [{ text: `svc: ${args.path} changed shape; channel ids are not remembered` }],
        }
      return {
        contents: source.replace(declaration, 'function computeChannelIdAfresh(config, networkOrChainId) {') + memo,
        loader: 'js',
      }
    })
  },
}
