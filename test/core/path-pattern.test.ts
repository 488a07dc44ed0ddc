/** The path-pattern grammar (core/path-pattern.ts): validation, parameters, matching, order, OpenAPI form. */
import { describe, expect, test } from 'vitest'
import {
  compareSpecificity,
  compilePattern,
  fillPathPattern,
  findMatch,
  openApiParameter,
  openApiPath,
  parsePathPattern,
  pathParameters,
  pathPatternProblem,
  routePatternOf,
} from '../../core/path-pattern.js'

const routes = (...patterns: string[]) =>
  patterns
    .map((pattern) => ({ compiled: compilePattern('GET', pattern) }))
    .sort((a, b) => compareSpecificity(a.compiled, b.compiled))
const match = (candidates: ReturnType<typeof routes>, path: string, method = 'GET') =>
  findMatch(candidates, method, path)?.compiled.pattern

describe('pathPatternProblem', () => {
  test.each([
    '/',
    '/status',
    '/status/',
    '/weather/{city}',
    '/users/{id}/posts/{post_id}',
    '/files/*',
    '/files*',
    '/*',
    "/a.b/~x!$&'()+,;=:@%20",
    '/{_a1}/x',
  ])('%s is valid', (pattern) => {
    expect(pathPatternProblem(pattern)).toBeUndefined()
  })

  test.each([
    ['weather', 'must start with "/"'],
    ['', 'must start with "/"'],
    ['/a//b', 'empty segment ("//")'],
    ['//', 'empty segment ("//")'],
    ['/a/{id}/{id}', 'duplicate parameter "{id}"'],
    ['/a/x{id}', 'a parameter must be a whole segment like "{id}", not "x{id}"'],
    ['/a/{id', 'a parameter must be a whole segment like "{id}", not "{id"'],
    ['/a/{}', 'invalid parameter name "": letters, digits and "_", not starting with a digit'],
    ['/a/{1st}', 'invalid parameter name "1st": letters, digits and "_", not starting with a digit'],
    ['/a*/b', '"*" is allowed only as the last character'],
    ['/a/**', '"*" is allowed only as the last character'],
    ['/a/{id}*', '"*" must follow a literal segment or "/", not a parameter'],
    ['/a?b=1', `invalid character in segment "a?b=1" (letters, digits and -._~!$&'()+,;=:@% are allowed)`],
    ['/a b', `invalid character in segment "a b" (letters, digits and -._~!$&'()+,;=:@% are allowed)`],
  ])('%j: %s', (pattern, problem) => {
    expect(pathPatternProblem(pattern)).toBe(problem)
  })
})

describe('parameters', () => {
  test('parsePathPattern: literal and parameter segments, the * taken off', () => {
    expect(parsePathPattern('/users/{id}/files*')).toEqual({
      segments: [
        { kind: 'literal', text: 'users' },
        { kind: 'parameter', name: 'id' },
        { kind: 'literal', text: 'files' },
      ],
      wildcard: true,
    })
    expect(parsePathPattern('/')).toEqual({ segments: [{ kind: 'literal', text: '' }], wildcard: false })
  })

  test('pathParameters: the {name}s in order', () => {
    expect(pathParameters('/users/{id}/posts/{post_id}')).toEqual(['id', 'post_id'])
    expect(pathParameters('/files/{dir}/*')).toEqual(['dir'])
    expect(pathParameters('/status')).toEqual([])
  })

  test('fillPathPattern: a path the pattern matches', () => {
    expect(fillPathPattern('/users/{id}/posts/{post_id}', () => '1')).toBe('/users/1/posts/1')
    expect(fillPathPattern('/files/*', (name) => name)).toBe('/files/')
    expect(fillPathPattern('/files*', () => '1')).toBe('/files')
    expect(fillPathPattern('/*', () => '1')).toBe('/')
    for (const pattern of ['/users/{id}', '/files/*', '/files*', '/*', '/a/{b}/c/'])
      expect(compilePattern('GET', pattern).regex.test(fillPathPattern(pattern, () => 'x'))).toBe(true)
  })

  test('routePatternOf: the :name form of express-style routers', () => {
    expect(routePatternOf('/users/{id}/posts/{post_id}')).toBe('/users/:id/posts/:post_id')
    expect(routePatternOf('/files/{dir}/*')).toBe('/files/:dir/*')
    expect(routePatternOf('/status/')).toBe('/status/')
    expect(routePatternOf('/*')).toBe('/*')
  })
})

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

  test('counts what specificity compares; the method upper case', () => {
    expect(compilePattern('get', '/files/{dir}/img*')).toMatchObject({
      method: 'GET',
      pattern: '/files/{dir}/img*',
      literals: 1,
      params: 1,
      wildcard: true,
      literalChars: 8,
    })
    expect(compilePattern('GET', '/users/me')).toMatchObject({
      literals: 2,
      params: 0,
      wildcard: false,
      literalChars: 7,
    })
  })
})

describe('specificity', () => {
  test('literal segments first, then no wildcard, then parameters, then literal text', () => {
    const candidates = routes(
      '/*',
      '/files/*',
      '/files/img*',
      '/files/{name}',
      '/files/{dir}/*',
      '/files/readme',
      '/{a}/{b}',
    )
    expect(candidates.map((c) => c.compiled.pattern)).toEqual([
      '/files/readme',
      '/files/{name}',
      '/files/{dir}/*',
      '/files/img*',
      '/files/*',
      '/{a}/{b}',
      '/*',
    ])
    expect(match(candidates, '/files/readme')).toBe('/files/readme')
    expect(match(candidates, '/files/other')).toBe('/files/{name}')
    expect(match(candidates, '/files/x/y')).toBe('/files/{dir}/*')
    expect(match(candidates, '/files/')).toBe('/files/*')
    expect(match(candidates, '/docs/intro')).toBe('/{a}/{b}')
    expect(match(candidates, '/docs')).toBe('/*')
    expect(match(candidates, '/docs', 'POST')).toBeUndefined()
  })

  test('the pattern text breaks the last tie, so the order is total', () => {
    expect(routes('/{b}', '/{a}').map((c) => c.compiled.pattern)).toEqual(['/{a}', '/{b}'])
  })
})

describe('OpenAPI form', () => {
  test('openApiPath: parameters stay, a trailing * becomes a catch-all parameter with a free name', () => {
    expect(openApiPath('/a/{id}/b')).toEqual({ path: '/a/{id}/b', parameters: [{ name: 'id', catchAll: false }] })
    expect(openApiPath('/files/*').path).toBe('/files/{path}')
    expect(openApiPath('/files*').path).toBe('/files{path}')
    expect(openApiPath('/*').path).toBe('/{path}')
    expect(openApiPath('/{path}/x/*')).toEqual({
      path: '/{path}/x/{rest}',
      parameters: [
        { name: 'path', catchAll: false },
        { name: 'rest', catchAll: true },
      ],
    })
    expect(openApiPath('/{path}/{rest}/*').path).toBe('/{path}/{rest}/{path_2}')
  })

  test('openApiParameter: a required path parameter, a string unless a schema is given; a catch-all says it may hold "/"', () => {
    expect(openApiParameter({ name: 'id', catchAll: false })).toEqual({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    })
    expect(openApiParameter({ name: 'id', catchAll: false }, { type: 'integer' })).toEqual({
      name: 'id',
      in: 'path',
      required: true,
      schema: { type: 'integer' },
    })
    expect(openApiParameter({ name: 'path', catchAll: true })).toEqual({
      name: 'path',
      in: 'path',
      required: true,
      description: 'The rest of the request path; it may contain "/".',
      schema: { type: 'string' },
    })
  })
})
