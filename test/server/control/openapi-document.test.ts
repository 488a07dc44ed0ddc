import { Validator } from '@seriousme/openapi-schema-validator'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { loadContract } from '../../../server/control/openapi-document.js'
import { startTestServer, type TestServer } from '../../helpers/control.js'

let t: TestServer
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(() => t?.stop())

describe('server/openapi.yaml', () => {
  test('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator()
    const result = await validator.validate(loadContract().json as Record<string, unknown>)
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).toEqual([])
    expect(result.valid).toBe(true)
    expect(validator.version).toBe('3.1')
  })

  test('is served as /openapi.yaml and /openapi.json on both control-plane hosts', async () => {
    const yaml = await t.call('/openapi.yaml')
    expect(yaml.status).toBe(200)
    expect(yaml.headers.get('content-type')).toMatch(/yaml/)
    expect(yaml.body).toContain('openapi: 3.1.0')
    const json = await t.call('/openapi.json', { host: 'development' })
    expect(json.body).toEqual(loadContract().json)
  })
})

describe('errors are JSON', () => {
  test('unknown routes → 404 {error}', async () => {
    expect(await t.call('/nope', { unchecked: true })).toMatchObject({
      status: 404,
      body: { error: 'no route for GET /nope' },
    })
  })

  test('malformed JSON → 400, oversized bodies → 413', async () => {
    expect(await t.call('/auth/signup', { body: '{"email": "a@b.test", ' })).toMatchObject({
      status: 400,
      body: { error: 'malformed JSON body' },
    })
    const big = await t.call('/auth/signup', { body: { email: 'a@b.test', password: 'x'.repeat(1_100_000) } })
    expect(big).toMatchObject({ status: 413, body: { error: 'body larger than 1mb' } })
  })

  test('a JSON body that is not an object → 400', async () => {
    expect(await t.call('/auth/signup', { body: '[1,2]' })).toMatchObject({ status: 400 })
    expect(await t.call('/auth/signup', { body: '"text"' })).toMatchObject({ status: 400 })
  })
})
