import { describe, expect, test } from 'vitest'
import { compareSpecificity, compilePattern, findRoute, normalizePath } from '../../server/gateway/route-match.js'
import { exampleOf } from '../../server/gateway/payment-required.js'

const routes = (...patterns: string[]) =>
  patterns.map((pattern) => ({ compiled: compilePattern('GET', pattern) })).sort((a, b) => compareSpecificity(a.compiled, b.compiled))
const match = (candidates: ReturnType<typeof routes>, path: string, method = 'GET') => findRoute(candidates, method, path)?.compiled.pattern

describe('compilePattern', () => {
  test.each([
    ['/status', '/status', true],
    ['/status', '/status/', false],
    ['/status/', '/status/', true],
    ['/users/{id}', '/users/42', true],
    ['/users/{id}', '/users/', false],
    ['/users/{id}', '/users/42/posts', false],
    ['/files/*', '/files/', true],
    ['/files/*', '/files/a/b.txt', true],
    ['/files/*', '/files', false],
    ['/files*', '/files', true],
    ['/files*', '/filesystem/x', true],
    ['/a.b/{x}', '/aXb/1', false],
    ['/a.b/{x}', '/a.b/1', true],
    ['/*', '/anything/at/all', true],
  ])('%s on %s → %s', (pattern, path, matches) => {
    expect(compilePattern('GET', pattern).regex.test(path)).toBe(matches)
  })
})

describe('specificity', () => {
  test('literal segments first, then no wildcard, then parameters, then literal text', () => {
    const candidates = routes('/*', '/files/*', '/files/img*', '/files/{name}', '/files/{dir}/*', '/files/readme', '/{a}/{b}')
    expect(candidates.map((c) => c.compiled.pattern)).toEqual(['/files/readme', '/files/{name}', '/files/{dir}/*', '/files/img*', '/files/*', '/{a}/{b}', '/*'])
    expect(match(candidates, '/files/readme')).toBe('/files/readme')
    expect(match(candidates, '/files/other')).toBe('/files/{name}')
    expect(match(candidates, '/files/x/y')).toBe('/files/{dir}/*')
    expect(match(candidates, '/files/')).toBe('/files/*')
    expect(match(candidates, '/docs/intro')).toBe('/{a}/{b}')
    expect(match(candidates, '/docs')).toBe('/*')
    expect(match(candidates, '/docs', 'POST')).toBeUndefined()
  })
})

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

describe('exampleOf', () => {
  test('an example shaped like the schema, preferring the schema’s own examples', () => {
    expect(
      exampleOf({
        type: 'object',
        properties: {
          city: { type: 'string' },
          temp: { type: 'number' },
          ok: { type: 'boolean' },
          tags: { type: 'array', items: { type: 'string' } },
          unit: { enum: ['C', 'F'] },
          station: { type: 'object', properties: { id: { type: 'string', example: 'PAR' } } },
          note: { type: ['string', 'null'] },
        },
      }),
    ).toEqual({ city: 'string', temp: 1, ok: true, tags: ['string'], unit: 'C', station: { id: 'PAR' }, note: 'string' })
    expect(exampleOf({})).toEqual({})
    expect(exampleOf({ examples: [{ a: 1 }] })).toEqual({ a: 1 })
  })
})
