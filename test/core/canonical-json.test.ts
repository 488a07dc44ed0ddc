import { describe, expect, test } from 'vitest'
import { canonicalJson } from '../../core/canonical-json.js'

describe('canonicalJson', () => {
  test('key order and whitespace do not matter; arrays keep their order', () => {
    expect(canonicalJson(JSON.parse('{ "b": 1, "a": [2, {"d": 3, "c": 4}] }'))).toBe(
      canonicalJson({ a: [2, { c: 4, d: 3 }], b: 1 }),
    )
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]))
  })

  test('bigints are written as 123n, distinct from the number and the string', () => {
    expect(canonicalJson({ v: 10n })).toBe('{"v":"10n"}')
    expect(canonicalJson({ v: 10n })).not.toBe(canonicalJson({ v: 10 }))
  })

  test('hex compares case-insensitively only when asked', () => {
    expect(canonicalJson({ a: '0xAbC' }, { hexCaseInsensitive: true })).toBe(
      canonicalJson({ a: '0xabc' }, { hexCaseInsensitive: true }),
    )
    expect(canonicalJson({ a: '0xAbC' })).not.toBe(canonicalJson({ a: '0xabc' }))
  })

  test('undefined and null', () => {
    expect(canonicalJson(undefined)).toBe('null')
    expect(canonicalJson({ a: null })).toBe('{"a":null}')
  })
})
