/**
 * JSON with object keys sorted, so two encodings of one value give one string (payment identities, settlement keys,
 * cache keys). Bigints are written as `123n`; `hexCaseInsensitive` lower-cases 0x hex strings (addresses and
 * signatures compare case-insensitively). `undefined` where JSON has no value is written as `null`.
 */
export function canonicalJson(value: unknown, options: { hexCaseInsensitive?: boolean } = {}): string {
  const encode = (item: unknown): string => {
    if (typeof item === 'bigint') return JSON.stringify(`${item}n`)
    if (Array.isArray(item)) return `[${item.map(encode).join(',')}]`
    if (item !== null && typeof item === 'object')
      return `{${Object.keys(item)
        .sort()
        .map((key) => `${JSON.stringify(key)}:${encode((item as Record<string, unknown>)[key])}`)
        .join(',')}}`
    if (options.hexCaseInsensitive && typeof item === 'string' && /^0x[0-9a-f]*$/i.test(item))
      return JSON.stringify(item.toLowerCase())
    return JSON.stringify(item) ?? 'null'
  }
  return encode(value)
}
