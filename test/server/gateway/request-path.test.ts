import { describe, expect, test } from 'vitest'
import { normalizePath } from '../../../server/payments/decode.js'

describe('normalizePath', () => {
  test('resolves dot segments, also percent-encoded; refuses what is not a path', () => {
    expect(normalizePath('/a/b')).toBe('/a/b')
    expect(normalizePath('/free/../paid')).toBe('/paid')
    expect(normalizePath('/free/%2e%2E/paid')).toBe('/paid')
    expect(normalizePath('/a/./b.txt')).toBe('/a/b.txt')
    expect(normalizePath('//evil.example/x')).toBeUndefined()
    expect(normalizePath('*')).toBeUndefined()
  })
})
