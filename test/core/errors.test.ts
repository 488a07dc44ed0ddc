import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { HttpRequestError, RpcRequestError, TransactionRejectedRpcError } from 'viem'
import { describe, expect, test } from 'vitest'
import {
  BadRequestError,
  ChainError,
  ConflictError,
  errorCode,
  errorCodes,
  ForbiddenError,
  NotFoundError,
  ServiceUnavailableError,
  SvcApiError,
  SvcError,
  toSvcError,
  UnauthorizedError,
  UsageError,
} from '../../core/errors.js'
import * as sdk from '../../sdk/client.js'
import { layers, root, sourceFiles } from '../architecture/rooms.js'

const rpcUrl = 'http://127.0.0.1:8545'

describe('the error family: every error has a code, an HTTP status and a CLI exit code', () => {
  test.each([
    [new BadRequestError('bad'), 'BadRequestError', 'bad_request', 400, 1],
    [new UnauthorizedError(), 'UnauthorizedError', 'unauthorized', 401, 1],
    [new ForbiddenError('no'), 'ForbiddenError', 'forbidden', 403, 1],
    [new NotFoundError(), 'NotFoundError', 'not_found', 404, 1],
    [new ConflictError('taken'), 'ConflictError', 'conflict', 409, 1],
    [new ChainError('reverted'), 'ChainError', 'chain_error', 502, 1],
    [new ChainError('no answer', { code: 'unreachable' }), 'ChainError', 'unreachable', 502, 1],
    [new ServiceUnavailableError('the sandbox chain is not running'), 'ServiceUnavailableError', 'unavailable', 503, 1],
    [new UsageError('--price is needed'), 'UsageError', 'usage_error', 400, 2],
    [new SvcError('oops'), 'SvcError', 'internal_error', 500, 1],
  ])('%s: %s is %s, HTTP %i, exit code %i', (error, name, code, status, exitCode) => {
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toBeInstanceOf(Error)
    expect(error).toMatchObject({ name, code, status, exitCode })
  })

  test('the defaults: the messages, the code of a bare status, an explicit code, the cause', () => {
    expect(new UnauthorizedError().message).toBe('unauthorized')
    expect(new NotFoundError().message).toBe('not found')
    expect(new SvcError('invalid token', { status: 401 }).code).toBe('unauthorized')
    expect(new SvcError('email already verified', { status: 409 }).code).toBe('conflict')
    expect(new SvcError('too large', { status: 413 }).code).toBe('internal_error')
    const cause = new Error('ECONNREFUSED')
    const error = new SvcError('cannot reach it', { code: 'unreachable', exitCode: 2, cause })
    expect(error).toMatchObject({ code: 'unreachable', status: 500, exitCode: 2, cause })
    expect(new BadRequestError('bad', { cause }).cause).toBe(cause)
  })

  test("SvcApiError is an SvcError: the control plane's status, message and body; its code follows the status", () => {
    const error = new SvcApiError(403, 'insufficient scope', { error: 'insufficient scope' })
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({
      name: 'SvcApiError',
      status: 403,
      code: 'forbidden',
      exitCode: 1,
      message: 'insufficient scope',
      body: { error: 'insufficient scope' },
    })
    expect(new SvcApiError(401, 'unauthorized', {}).code).toBe('unauthorized')
    expect(new SvcApiError(404, 'api not found', {}).code).toBe('not_found')
    expect(new SvcApiError(0, 'cannot reach http://api.localhost:9: is svc up running?', undefined)).toMatchObject({
      status: 0,
      code: 'unreachable',
      exitCode: 1,
    })
    expect(new SvcApiError(502, 'funding failed', {}).code).toBe('api_error')
    expect(new SvcApiError(500, 'internal error', {}).code).toBe('api_error')
  })

  test('the SDK re-exports SvcApiError and errorCode (its public API)', () => {
    expect(sdk.SvcApiError).toBe(SvcApiError)
    expect(sdk.errorCode).toBe(errorCode)
  })
})

describe('errorCode: the first code in a cause chain', () => {
  test('a code on the error, on a cause, on the first of an AggregateError', () => {
    expect(errorCode(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('ECONNREFUSED')
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
    expect(errorCode(new TypeError('fetch failed', { cause: refused }))).toBe('ECONNREFUSED')
    expect(errorCode(new TypeError('fetch failed', { cause: new AggregateError([refused]) }))).toBe('ECONNREFUSED')
    expect(errorCode(new Error('plain'))).toBeUndefined()
    expect(errorCode(undefined)).toBeUndefined()
  })
})

describe('toSvcError: any thrown value as one SvcError with a one-line message and the original as its cause', () => {
  test('an SvcError (an SvcApiError too) is returned as it is', () => {
    const usage = new UsageError('bad flag')
    expect(toSvcError(usage)).toBe(usage)
    const api = new SvcApiError(404, 'api not found', { error: 'api not found' })
    expect(toSvcError(api)).toBe(api)
  })

  test("a viem error is a ChainError with viem's short message", () => {
    const rpc = new RpcRequestError({
      body: { method: 'eth_sendRawTransaction' },
      error: { code: -32003, message: 'nonce too low' },
      url: rpcUrl,
    })
    const viemError = new TransactionRejectedRpcError(rpc)
    expect(viemError.message.split('\n').length).toBeGreaterThan(1)
    const error = toSvcError(viemError)
    expect(error).toBeInstanceOf(ChainError)
    expect(error).toMatchObject({
      code: 'chain_error',
      status: 502,
      exitCode: 1,
      message: viemError.shortMessage,
      cause: viemError,
    })
    expect(error.message).not.toContain('\n')
  })

  test('a chain RPC that does not answer is a ChainError coded unreachable, also as the cause of another error', () => {
    const http = new HttpRequestError({ url: rpcUrl, body: { method: 'eth_blockNumber' }, details: 'fetch failed' })
    expect(toSvcError(http)).toMatchObject({
      name: 'ChainError',
      code: 'unreachable',
      message: 'HTTP request failed.',
      cause: http,
    })
    const wrapped = new Error('reading the block number failed', { cause: http })
    expect(toSvcError(wrapped)).toMatchObject({
      name: 'ChainError',
      code: 'unreachable',
      message: 'reading the block number failed',
      cause: wrapped,
    })
  })

  test('a plain Error is an internal_error with the first line of its message', () => {
    const plain = new Error('something broke\n    at somewhere (file.ts:1:1)')
    const error = toSvcError(plain)
    expect(error).toBeInstanceOf(SvcError)
    expect(error).toMatchObject({
      code: 'internal_error',
      status: 500,
      exitCode: 1,
      message: 'something broke',
      cause: plain,
    })
    expect(toSvcError(new Error('')).message).toBe('unknown error')
  })

  test('a string, or anything else thrown, is an internal_error with its text', () => {
    expect(toSvcError('no can do')).toMatchObject({
      code: 'internal_error',
      exitCode: 1,
      message: 'no can do',
      cause: 'no can do',
    })
    expect(toSvcError({ message: 'an object with a message' }).message).toBe('an object with a message')
    expect(toSvcError(undefined).message).toBe('undefined')
    expect(toSvcError(42).message).toBe('42')
  })
})

/** The text of each `new SvcError(…)` call in `text`, its parentheses balanced. */
function svcErrorCalls(text: string): string[] {
  const calls: string[] = []
  for (let at = text.indexOf('new SvcError('); at >= 0; at = text.indexOf('new SvcError(', at + 1)) {
    let depth = 0
    let end = at + 'new SvcError'.length
    for (; end < text.length; end++) {
      if (text[end] === '(') depth++
      else if (text[end] === ')' && --depth === 0) break
    }
    calls.push(text.slice(at, end + 1))
  }
  return calls
}

describe('errorCodes', () => {
  test('every code an SvcError is made with is in the list, with a status, an exit code and a meaning', () => {
    const listed = new Set<string>(errorCodes.map((entry) => entry.code))
    expect(listed.size).toBe(errorCodes.length)
    // core/errors.ts: every `code: '…'` literal and every code its types name; elsewhere: every `new SvcError(…)`'s.
    const own = readFileSync(join(root, 'core', 'errors.ts'), 'utf8').split('export const errorCodes')
    const made = new Map<string, string>()
    const note = (text: string, where: string) => {
      for (const [, code] of text.matchAll(/\bcode\??: '([a-z_]+)'/g)) made.set(code!, where)
      for (const [, codes] of text.matchAll(/\bcode\??: ('[a-z_]+'(?: \| '[a-z_]+')+)/g))
        for (const [, code] of codes!.matchAll(/'([a-z_]+)'/g)) made.set(code!, where)
      for (const [, code] of text.matchAll(/^\s+\d{3}: '([a-z_]+)',$/gm)) made.set(code!, where)
      for (const [, code] of text.matchAll(/\?\? '([a-z_]+)'/g)) made.set(code!, where)
    }
    note(own[0]! + own[1]!.slice(own[1]!.indexOf('] as const')), 'core/errors.ts')
    for (const file of layers.flatMap(sourceFiles).filter((file) => file !== 'core/errors.ts'))
      for (const call of svcErrorCalls(readFileSync(join(root, file), 'utf8'))) note(call, file)
    expect(made.size).toBeGreaterThan(12)
    expect([...made].filter(([code]) => !listed.has(code)).map(([code, where]) => `${code} (${where})`)).toEqual([])
    for (const entry of errorCodes) {
      expect(entry.meaning.length, entry.code).toBeGreaterThan(20)
      expect(entry.status === undefined || (entry.status >= 400 && entry.status < 600), entry.code).toBe(true)
    }
  })

  test("each error class's code, status and exit code are its entry's", () => {
    const entry = (code: string) => errorCodes.find((e) => e.code === code)!
    for (const error of [
      new BadRequestError('x'),
      new UnauthorizedError(),
      new ForbiddenError('x'),
      new NotFoundError(),
      new ConflictError('x'),
      new ChainError('x'),
      new ChainError('x', { code: 'unreachable' }),
      new ServiceUnavailableError('x'),
      new UsageError('x'),
      new SvcError('x'),
    ]) {
      expect([error.status, error.exitCode], error.code).toEqual([entry(error.code).status, entry(error.code).exit])
    }
  })
})
