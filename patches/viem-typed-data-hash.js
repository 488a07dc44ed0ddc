// PATCH of viem (2.57.1): `hashDomain` and the type hash of `hashStruct` (viem/_esm/utils/signature/hashTypedData.js),
// applied at build time to the `svc` command's bundle only, by this esbuild plugin (bin/build.js). viem on disk is not
// touched.
//
// What: an EIP-712 domain's hash (its separator) and a struct type's hash (keccak of its `encodeType` string) are
// answered from memory (an LRU of 256 each) when they were computed a moment ago, instead of being hashed again. A
// domain is remembered only when each of its `EIP712Domain` fields has a plain type (string, uint256, address,
// bytes32) and a string, number or bigint value; the key is every field's name, type and value exactly as given.
// Anything else (custom domain types, other values) is hashed by viem's own code as before; an input viem throws on is
// never remembered. A viem whose module changed shape is left alone, with a build warning.
//
// Why: every payment svc verifies hashes EIP-712 typed data (the exact scheme's EIP-3009 or Permit2 authorization, a
// payment channel's voucher), and the domain is always one of a few (a token's, the batch-settlement contract's): its
// hash is four keccaks in pure JavaScript (the name, the version, the type, the struct), more than half of a voucher's
// `hashTypedData`, and about 0.1 ms of svc's CPU per payment on 2 cores. The message's own struct is still hashed for
// every payment, and the signature still recovered and compared: only the parts that cannot change are remembered.
//
// When it can go: when viem remembers domain separators itself, or when `npm run bench -- --only channels` shows no
// difference without it (`cpu_per_request.voucher.svc_ms`). test/build/typed-data-hash.test.ts checks the patch
// against viem's own hashing.
//
// The SDK's startSandbox() runs the per-file build on the user's own viem, without this.
import { readFileSync } from 'node:fs'

/** Domains and types kept (a sandbox has a few of each). */
const remembered = 256

const target = /[\\/]viem[\\/]_esm[\\/]utils[\\/]signature[\\/]hashTypedData\.js$/
const domainDeclaration = 'export function hashDomain({ domain, types, }) {'
const typeHash =
  /function hashType\(\{ primaryType, types, \}\) \{\s*const encodedHashType = toHex\(encodeType\(\{ primaryType, types \}\)\);\s*return keccak256\(encodedHashType\);\s*\}/

/** Replaces viem's `hashType`: the same keccak, remembered by the type string it hashes. */
const rememberedTypeHash = `function hashType({ primaryType, types, }) {
    const encoded = encodeType({ primaryType, types });
    let hash = svcTypeHashes.get(encoded);
    if (hash === undefined) {
        hash = keccak256(toHex(encoded));
        svcTypeHashes.set(encoded, hash);
    }
    return hash;
}`

/** Appended to viem's module; its own `hashDomain` is renamed `hashDomainAfresh`. */
const rememberedDomain = `
import { LRUCache as SvcTypedDataLRUCache } from 'lru-cache'

const svcTypeHashes = new SvcTypedDataLRUCache({ max: ${remembered} })
const svcDomainHashes = new SvcTypedDataLRUCache({ max: ${remembered} })
const svcPlainDomainTypes = new Set(['string', 'uint256', 'address', 'bytes32'])
/** The domain's fields (name, type, value as given); undefined (not remembered) for anything but plain ones. */
function svcDomainKey(domain, types) {
  const fields = types?.EIP712Domain
  if (!Array.isArray(fields) || typeof domain !== 'object' || domain === null) return undefined
  const parts = []
  for (const field of fields) {
    const value = domain[field?.name]
    const kind = typeof value
    if (!svcPlainDomainTypes.has(field.type) || (kind !== 'string' && kind !== 'number' && kind !== 'bigint'))
      return undefined
    parts.push(field.name, field.type, kind, String(value))
  }
  return JSON.stringify(parts)
}
export function hashDomain(parameters) {
  const key = svcDomainKey(parameters?.domain, parameters?.types)
  if (key === undefined) return hashDomainAfresh(parameters)
  let hash = svcDomainHashes.get(key)
  if (hash === undefined) {
    hash = hashDomainAfresh(parameters)
    svcDomainHashes.set(key, hash)
  }
  return hash
}
/** How many domain and type hashes are remembered (for svc's tests). */
export const svcRememberedTypedData = () => ({ domains: svcDomainHashes.size, types: svcTypeHashes.size })
`

export const viemTypedDataHashPatch = {
  name: 'svc-patch-viem-typed-data-hash',
  setup(build) {
    build.onLoad({ filter: target }, (args) => {
      const source = readFileSync(args.path, 'utf8')
      // A viem whose module looks otherwise is left as it is (and the build says so).
      if (!source.includes(domainDeclaration) || !typeHash.test(source))
        return {
          contents: source,
          loader: 'js',
          warnings: [{ text: `svc: ${args.path} changed shape; EIP-712 domain and type hashes are not remembered` }],
        }
      return {
        contents:
          source
            .replace(domainDeclaration, 'function hashDomainAfresh({ domain, types, }) {')
            .replace(typeHash, rememberedTypeHash) + rememberedDomain,
        loader: 'js',
      }
    })
  },
}
